/**
 * jailcore's admins in game: the flag that makes one (cvar sm_jailcore_admin_flag), and
 * their chat commands. The commands only report to the daemon (pardon, CT ban, unban: it
 * decides and answers with its own commands) or show what the bridge holds.
 */

static ConVar s_AdminFlag;

void Admin_Start()
{
	s_AdminFlag = CreateConVar("sm_jailcore_admin_flag", "b",
		"SourceMod admin flag(s) of jailcore's admins: they see the enforcement feed and may use !ctban, !jcpardon...");
	RegConsoleCmd("sm_jcpardon", Cmd_Pardon, "Undo an enforcement: !jcpardon <id> [reason]");
	RegConsoleCmd("sm_jcconfirm", Cmd_Confirm, "Carry out a proposed punishment: !jcconfirm <id>");
	RegConsoleCmd("sm_jcdismiss", Cmd_Dismiss, "Drop a proposed punishment: !jcdismiss <id> [reason]");
	RegConsoleCmd("sm_ctban", Cmd_CtBan, "CT-ban a player: !ctban <#userid|name> <minutes|Nr> [reason]");
	RegConsoleCmd("sm_unctban", Cmd_UnCtBan, "Lift a CT ban: !unctban <#userid|name>");
	RegConsoleCmd("sm_ctbans", Cmd_CtBans, "The CT bans of the players online");
	RegConsoleCmd("sm_isbanned", Cmd_IsBanned, "Whether a player is CT-banned: !isbanned <player>");
	RegConsoleCmd("sm_jcstatus", Cmd_JcStatus, "The daemon's state line, the CT bans and the link");
}

/** The client holds every flag of sm_jailcore_admin_flag (root holds all). */
bool Admin_Has(int client)
{
	char flags[32];
	s_AdminFlag.GetString(flags, sizeof(flags));
	int bits = ReadFlagString(flags);
	// An empty or unknown flag must not make everyone an admin.
	return CheckCommandAccess(client, "sm_jailcore_admin", bits == 0 ? ADMFLAG_GENERIC : bits, true);
}

/** In game and a jailcore admin, or told why not. */
static bool Admin_Allow(int client)
{
	if (client < 1)
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_InGameOnly");
		return false;
	}
	if (!Admin_Has(client))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_NoAccess");
		return false;
	}
	return true;
}

/** The command's text after its first `skip` arguments, cleaned; "" when there is none. */
static void Admin_Rest(int skip, char[] out, int size)
{
	char all[256], word[64];
	GetCmdArgString(all, sizeof(all));
	int at = 0;
	for (int i = 0; i < skip; i++)
	{
		int next = BreakString(all[at], word, sizeof(word));
		if (next == -1)
		{
			out[0] = '\0';
			return;
		}
		at += next;
	}
	strcopy(out, size, all[at]);
	StripQuotes(out);
	Emit_Clean(out, size);
	TrimString(out);
}

static bool Admin_Digits(const char[] text, int max)
{
	int n = 0;
	for (; text[n] != '\0'; n++)
	{
		if (!IsCharNumeric(text[n]))
		{
			return false;
		}
	}
	return n > 0 && n <= max;
}

/** A CT ban's length as the daemon reads it: minutes ("30") or rounds ("3r"). */
static bool Admin_Length(const char[] text)
{
	char digits[16];
	strcopy(digits, sizeof(digits), text);
	int n = strlen(digits);
	if (n > 1 && (digits[n - 1] == 'r' || digits[n - 1] == 'R'))
	{
		digits[n - 1] = '\0';
		return Admin_Digits(digits, 4) && StringToInt(digits) > 0;
	}
	return Admin_Digits(digits, 6);
}

public Action Cmd_Pardon(int client, int args)
{
	Admin_Word(client, "jb_pardon", "JB_UsagePardon", "JB_PardonSent");
	return Plugin_Handled;
}

public Action Cmd_Confirm(int client, int args)
{
	Admin_Word(client, "jb_confirm", "JB_UsageConfirm", "JB_ConfirmSent");
	return Plugin_Handled;
}

public Action Cmd_Dismiss(int client, int args)
{
	Admin_Word(client, "jb_dismiss", "JB_UsageDismiss", "JB_DismissSent");
	return Plugin_Handled;
}

/** An admin's word on one audit entry, `<id> [reason]` (a pardon, or the answer to a proposed
 *  punishment when a rule set has confirm = "admin"): only reported; the daemon judges it. */
static void Admin_Word(int client, const char[] trigger, const char[] usage, const char[] done)
{
	if (!Admin_Allow(client))
	{
		return;
	}
	char id[32], reason[192];
	GetCmdArg(1, id, sizeof(id));
	if (!Admin_Digits(id, 15))
	{
		ReplyToCommand(client, "[jailcore] %t", usage);
		return;
	}
	Admin_Rest(1, reason, sizeof(reason));
	Emit_AdminWord(client, trigger, id, reason);
	ReplyToCommand(client, "[jailcore] %t", done, id);
}

public Action Cmd_CtBan(int client, int args)
{
	if (!Admin_Allow(client))
	{
		return Plugin_Handled;
	}
	char arg[64], length[16], reason[192];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, length, sizeof(length));
	if (args < 2 || !Admin_Length(length))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_UsageCtBan");
		return Plugin_Handled;
	}
	int target = FindTarget(client, arg, true, false);
	if (target < 1)
	{
		return Plugin_Handled;
	}
	if (length[strlen(length) - 1] == 'R')
	{
		length[strlen(length) - 1] = 'r';
	}
	Admin_Rest(2, reason, sizeof(reason));
	Emit_CtBan(client, target, length, reason);
	ReplyToCommand(client, "[jailcore] %t", "JB_CtBanSent", target, length);
	return Plugin_Handled;
}

/** An admin's command naming one player (its first argument): the client, or -1 after
 * saying why not. */
static int Admin_Target(int client, int args, const char[] usage, bool nobots)
{
	if (!Admin_Allow(client))
	{
		return -1;
	}
	if (args < 1)
	{
		ReplyToCommand(client, "[jailcore] %t", usage);
		return -1;
	}
	char arg[64];
	GetCmdArg(1, arg, sizeof(arg));
	return FindTarget(client, arg, nobots, false);
}

public Action Cmd_UnCtBan(int client, int args)
{
	int target = Admin_Target(client, args, "JB_UsageUnCtBan", true);
	if (target > 0)
	{
		Emit_UnCtBan(client, target);
		ReplyToCommand(client, "[jailcore] %t", "JB_UnCtBanSent", target);
	}
	return Plugin_Handled;
}

/** The line about `target`'s CT ban, to `client`. */
static void Admin_ReplyBan(int client, int target)
{
	char line[256];
	CtBan_Describe(target, client, line, sizeof(line));
	ReplyToCommand(client, "[jailcore] %s", line);
}

/** Every CT ban held, one reply line each; false when there is none. */
static bool Admin_ListBans(int client)
{
	bool any = false;
	for (int i = 1; i <= MaxClients; i++)
	{
		if (IsClientInGame(i) && CtBan_Left(i) != 0)
		{
			Admin_ReplyBan(client, i);
			any = true;
		}
	}
	return any;
}

public Action Cmd_CtBans(int client, int args)
{
	if (Admin_Allow(client) && !Admin_ListBans(client))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_CtBansNone");
	}
	return Plugin_Handled;
}

public Action Cmd_IsBanned(int client, int args)
{
	int target = Admin_Target(client, args, "JB_UsageIsBanned", false);
	if (target < 1)
	{
		return Plugin_Handled;
	}
	if (CtBan_Left(target) == 0)
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_NotCtBanned", target);
	}
	else
	{
		Admin_ReplyBan(client, target);
	}
	return Plugin_Handled;
}

public Action Cmd_JcStatus(int client, int args)
{
	if (!Admin_Allow(client))
	{
		return Plugin_Handled;
	}
	char hud[256];
	Commands_LastHud(hud, sizeof(hud));
	if (hud[0] == '\0')
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_StatusNoHud");
	}
	else
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_StatusHud", hud);
	}
	int age = Commands_LinkAge();
	if (age < 0)
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_StatusNoLink");
	}
	else
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_StatusLink", age);
	}
	char note[256];
	Commands_Note(note, sizeof(note));
	if (note[0] != '\0')
	{
		ReplyToCommand(client, "[jailcore] %s", note);
	}
	if (!Admin_ListBans(client))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_CtBansNone");
	}
	return Plugin_Handled;
}
