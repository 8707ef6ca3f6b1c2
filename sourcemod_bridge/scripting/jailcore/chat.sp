/**
 * The players' chat commands, each as !cmd and /cmd (SourceMod's chat triggers for the
 * sm_ commands), and the short Russian aliases many servers use (!к, !приказ...), read
 * from chat because a command name cannot be relied on to carry Cyrillic.
 */

enum struct Alias
{
	char word[32];
	char command[32];
}

static ArrayList s_Aliases;
static int s_Prohibitions;

static void Chat_Alias(const char[] word, const char[] command)
{
	Alias a;
	strcopy(a.word, sizeof(a.word), word);
	strcopy(a.command, sizeof(a.command), command);
	s_Aliases.PushArray(a);
}

void Chat_Start()
{
	RegConsoleCmd("sm_w", Cmd_Warden, "Become the warden");
	RegConsoleCmd("sm_warden", Cmd_Warden, "Become the warden");
	RegConsoleCmd("sm_uw", Cmd_Unwarden, "Resign as warden");
	RegConsoleCmd("sm_unwarden", Cmd_Unwarden, "Resign as warden");
	RegConsoleCmd("sm_order", Cmd_Order, "Register an order: !order <text>");
	RegConsoleCmd("sm_cancel", Cmd_Cancel, "Cancel your orders");
	RegConsoleCmd("sm_prohibit", Cmd_Prohibit, "Set a prohibition: !prohibit <text>");
	RegConsoleCmd("sm_lift", Cmd_Lift, "Lift prohibition K: !lift <K>");
	RegConsoleCmd("sm_game", Cmd_Game, "Announce a game: !game <name>");
	RegConsoleCmd("sm_endgame", Cmd_EndGame, "End the game");
	RegConsoleCmd("sm_sd", Cmd_SpecialDay, "Announce a special day: !sd <day>");
	RegConsoleCmd("sm_fd", Cmd_Freeday, "Grant a freeday: !fd all | !fd #userid");
	RegConsoleCmd("sm_lr", Cmd_LastRequest, "Last prisoner's request: !lr <choice>");
	RegAdminCmd("sm_removewarden", Cmd_RemoveWarden, ADMFLAG_GENERIC, "Remove the warden");
	RegAdminCmd("sm_approve", Cmd_Approve, ADMFLAG_GENERIC, "Approve a game outside the catalogue: !approve <name>");
	RegAdminCmd("sm_fk", Cmd_Freekill, ADMFLAG_GENERIC, "Confirm a freekill report: !fk #userid kill|damage");
	HookEvent("round_start", Chat_OnRoundStart, EventHookMode_PostNoCopy);

	s_Aliases = new ArrayList(sizeof(Alias));
	Chat_Alias("к", "sm_w");
	Chat_Alias("командир", "sm_w");
	Chat_Alias("ук", "sm_uw");
	Chat_Alias("приказ", "sm_order");
	Chat_Alias("отмена", "sm_cancel");
	Chat_Alias("запрет", "sm_prohibit");
	Chat_Alias("снять", "sm_lift");
	Chat_Alias("игра", "sm_game");
	Chat_Alias("конец", "sm_endgame");
	Chat_Alias("од", "sm_sd");
	Chat_Alias("фд", "sm_fd");
	Chat_Alias("пж", "sm_lr");
	Chat_Alias("одобрить", "sm_approve");
	Chat_Alias("фк", "sm_fk");
}

public void Chat_OnRoundStart(Event event, const char[] name, bool dontBroadcast)
{
	s_Prohibitions = 0;
}

public Action OnClientSayCommand(int client, const char[] command, const char[] sArgs)
{
	if (client < 1 || (sArgs[0] != '!' && sArgs[0] != '/'))
	{
		return Plugin_Continue;
	}
	char word[32];
	int rest = BreakString(sArgs[1], word, sizeof(word));
	Alias a;
	for (int i = 0; i < s_Aliases.Length; i++)
	{
		s_Aliases.GetArray(i, a);
		if (StrEqual(word, a.word, false))
		{
			// At once and answered in chat, like SourceMod's own !triggers; the engine runs
			// the text as one client command, so a `;` in it starts nothing else.
			ReplySource old = SetCmdReplySource(SM_REPLY_TO_CHAT);
			if (rest == -1)
			{
				FakeClientCommand(client, "%s", a.command);
			}
			else
			{
				FakeClientCommand(client, "%s %s", a.command, sArgs[1 + rest]);
			}
			SetCmdReplySource(old);
			return sArgs[0] == '/' ? Plugin_Handled : Plugin_Continue;
		}
	}
	return Plugin_Continue;
}

static bool Chat_RequireWarden(int client)
{
	if (client < 1 || !Warden_Is(client))
	{
		if (client > 0)
		{
			ReplyToCommand(client, "[jailcore] %t", "JB_OnlyWarden");
		}
		return false;
	}
	return true;
}

static bool Chat_Text(int client, int args, char[] text, int size, const char[] usage)
{
	if (args < 1)
	{
		ReplyToCommand(client, "[jailcore] %t", usage);
		return false;
	}
	GetCmdArgString(text, size);
	StripQuotes(text);
	Emit_Clean(text, size);
	TrimString(text);
	if (text[0] == '\0')
	{
		ReplyToCommand(client, "[jailcore] %t", usage);
		return false;
	}
	return true;
}

public Action Cmd_Warden(int client, int args)
{
	char why[64];
	if (client > 0 && !Warden_Claim(client, why, sizeof(why)))
	{
		ReplyToCommand(client, "[jailcore] %t", why);
	}
	return Plugin_Handled;
}

public Action Cmd_Unwarden(int client, int args)
{
	if (Chat_RequireWarden(client))
	{
		Warden_Remove("resigned");
	}
	return Plugin_Handled;
}

public Action Cmd_RemoveWarden(int client, int args)
{
	Warden_Remove("admin");
	return Plugin_Handled;
}

public Action Cmd_Order(int client, int args)
{
	char text[192];
	if (Chat_RequireWarden(client) && Chat_Text(client, args, text, sizeof(text), "JB_UsageOrder"))
	{
		Emit_Order(client, text);
		PrintToChatAll("\x04[jailcore]\x01 %t", "JB_Order", text);
	}
	return Plugin_Handled;
}

public Action Cmd_Cancel(int client, int args)
{
	if (Chat_RequireWarden(client))
	{
		Emit_OrderCancel(client);
	}
	return Plugin_Handled;
}

public Action Cmd_Prohibit(int client, int args)
{
	char text[192];
	if (Chat_RequireWarden(client) && Chat_Text(client, args, text, sizeof(text), "JB_UsageProhibit"))
	{
		s_Prohibitions++;
		Emit_Prohibit(client, text);
		PrintToChatAll("\x04[jailcore]\x01 %t", "JB_Prohibit", s_Prohibitions, text);
	}
	return Plugin_Handled;
}

public Action Cmd_Lift(int client, int args)
{
	if (!Chat_RequireWarden(client))
	{
		return Plugin_Handled;
	}
	int index = GetCmdArgInt(1);
	if (index < 1 || index > s_Prohibitions)
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_UsageLift");
		return Plugin_Handled;
	}
	// The list closes up: what was K+1 is K now, for the daemon and the HUD alike.
	s_Prohibitions--;
	Emit_ProhibitLift(client, index);
	PrintToChatAll("\x04[jailcore]\x01 %t", "JB_ProhibitLifted", index);
	return Plugin_Handled;
}

/** The daemon voided prohibition K (refused it): it leaves the list as a lift would. */
void Chat_ProhibitionVoid(int index)
{
	if (index <= s_Prohibitions)
	{
		s_Prohibitions--;
	}
}

public Action Cmd_Game(int client, int args)
{
	char text[64];
	if (client > 0 && Chat_Text(client, args, text, sizeof(text), "JB_UsageGame"))
	{
		// Reported for anyone: whether a non-warden may host is the daemon's call.
		Emit_GameStart(client, text);
	}
	return Plugin_Handled;
}

public Action Cmd_EndGame(int client, int args)
{
	if (Chat_RequireWarden(client))
	{
		Emit_GameEnd(client);
	}
	return Plugin_Handled;
}

public Action Cmd_SpecialDay(int client, int args)
{
	char text[64];
	if (Chat_RequireWarden(client) && Chat_Text(client, args, text, sizeof(text), "JB_UsageSpecialDay"))
	{
		Emit_SpecialDay(client, text);
	}
	return Plugin_Handled;
}

public Action Cmd_Freeday(int client, int args)
{
	if (!Chat_RequireWarden(client))
	{
		return Plugin_Handled;
	}
	char arg[64];
	GetCmdArg(1, arg, sizeof(arg));
	if (StrEqual(arg, "all", false) || StrEqual(arg, "все", false))
	{
		Emit_Freeday(client, true, 0);
		return Plugin_Handled;
	}
	int target = FindTarget(client, arg, true, false);
	if (target > 0)
	{
		Emit_Freeday(client, false, target);
	}
	return Plugin_Handled;
}

public Action Cmd_LastRequest(int client, int args)
{
	char text[64];
	if (client > 0 && GetClientTeam(client) == CS_TEAM_T && IsPlayerAlive(client)
		&& Chat_Text(client, args, text, sizeof(text), "JB_UsageLastRequest"))
	{
		Emit_LastRequest(client, text);
	}
	return Plugin_Handled;
}

public Action Cmd_Approve(int client, int args)
{
	char text[64];
	if (client > 0 && Chat_Text(client, args, text, sizeof(text), "JB_UsageApprove"))
	{
		Emit_GameApprove(client, text);
	}
	return Plugin_Handled;
}

public Action Cmd_Freekill(int client, int args)
{
	char arg[64], kind[16];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, kind, sizeof(kind));
	bool damage = StrEqual(kind, "damage", false) || StrEqual(kind, "урон", false);
	if (args != 2 || (!damage && !StrEqual(kind, "kill", false) && !StrEqual(kind, "убийство", false)))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_UsageFreekill");
		return Plugin_Handled;
	}
	int victim = FindTarget(client, arg, false, false);
	if (victim > 0)
	{
		Emit_Freekill(client, victim, damage);
	}
	return Plugin_Handled;
}
