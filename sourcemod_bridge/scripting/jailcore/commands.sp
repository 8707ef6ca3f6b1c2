/**
 * The daemon's commands (protocol section 2 and this round's extensions): server commands,
 * so they run from the server console and RCON only. Each checks its arguments, acts on
 * #userid targets only, and answers one line: "ok" or "error: <why>".
 *
 * A command may end with "@<id>" (the daemon's audit row id). The id is stripped before
 * the arguments are read; an id already executed answers "ok dup" and does not run again,
 * so a command re-sent after a lost reply acts once. The 512 most recent ids are kept.
 */

#define JB_ID_RING 512
#define JB_ID_DIGITS 15

static char s_IdRing[JB_ID_RING][JB_ID_DIGITS + 1];
static int s_IdNext;
static StringMap s_IdSeen;
static char s_PendingId[JB_ID_DIGITS + 1];
static int s_LastCommand;     // GetTime() of the daemon's last command, 0 for none yet
static char s_LastHud[256];
static char s_Note[256];      // what the daemon wants admins to read in !jcstatus (dropped datagrams)

void Commands_Start()
{
	s_IdSeen = new StringMap();
	RegServerCmd("jb_warn", Srv_Warn, "jb_warn #userid \"text\": warn a player");
	RegServerCmd("jb_slay", Srv_Slay, "jb_slay #userid \"reason\": slay a player");
	RegServerCmd("jb_teamswap", Srv_Teamswap, "jb_teamswap #userid <T|CT> \"reason\": move a player");
	RegServerCmd("jb_money", Srv_Money, "jb_money #userid <delta>: add or remove money");
	RegServerCmd("jb_respawn", Srv_Respawn, "jb_respawn #userid: respawn a player");
	RegServerCmd("jb_say", Srv_Say, "jb_say \"text\": a message to everyone");
	RegServerCmd("jb_hud", Srv_Hud, "jb_hud \"text\": the standing state line");
	RegServerCmd("jb_cancel_prohibition", Srv_CancelProhibition, "jb_cancel_prohibition <K>: prohibition K is void");
	RegServerCmd("jb_status", Srv_Status, "jb_status: the state as one JSON object");
	RegServerCmd("jb_kick", Srv_Kick, "jb_kick #userid \"reason\": kick a player");
	RegServerCmd("jb_ban", Srv_Ban, "jb_ban #userid <minutes> \"reason\": ban a player (0 = permanent)");
	RegServerCmd("jb_ctban_set", Srv_CtBanSet, "jb_ctban_set #userid <seconds> \"reason\" \"by\": hold a CT ban (0 = until cleared)");
	RegServerCmd("jb_ctban_clear", Srv_CtBanClear, "jb_ctban_clear #userid: lift a CT ban");
	RegServerCmd("jb_fk_offer", Srv_FkOffer, "jb_fk_offer #userid \"text\": a freekilled prisoner chooses respawn or freeday");
	RegServerCmd("jb_addban", Srv_AddBan, "jb_addban \"steamid\" <minutes> \"reason\": ban a player who has left, by steamid (0 = permanent)");
	RegServerCmd("jb_unban", Srv_Unban, "jb_unban \"steamid\": lift a ban (SourceMod's RemoveBan), after a pardon");
	RegServerCmd("jb_adminfeed", Srv_AdminFeed, "jb_adminfeed \"text\": a message to jailcore's admins only");
	RegServerCmd("jb_note", Srv_Note, "jb_note \"text\": a line !jcstatus shows (the daemon's dropped datagrams)");
}

/** "@" and 1 to 15 digits. */
static bool Commands_IsId(const char[] arg)
{
	if (arg[0] != '@' || arg[1] == '\0')
	{
		return false;
	}
	int i = 1;
	for (; arg[i] != '\0'; i++)
	{
		if (!IsCharNumeric(arg[i]) || i > JB_ID_DIGITS)
		{
			return false;
		}
	}
	return true;
}

/** The daemon is there: for !jcstatus's link age. */
static void Commands_Touch()
{
	s_LastCommand = GetTime();
}

/** The argument count without a trailing id, or -1 when the id was executed already. */
static int Commands_Begin(int args)
{
	Commands_Touch();
	s_PendingId[0] = '\0';
	char last[64];
	if (args < 1 || GetCmdArg(args, last, sizeof(last)) == 0 || !Commands_IsId(last))
	{
		return args;
	}
	int seen;
	if (s_IdSeen.GetValue(last[1], seen))
	{
		ReplyToCommand(0, "ok dup");
		return -1;
	}
	strcopy(s_PendingId, sizeof(s_PendingId), last[1]);
	return args - 1;
}

/** The command has the arguments it wants and its id is new: run it. */
static bool Commands_Accept(int args, int want, const char[] usage)
{
	args = Commands_Begin(args);
	if (args < 0)
	{
		return false;
	}
	if (args != want)
	{
		ReplyToCommand(0, "error: usage: %s", usage);
		return false;
	}
	return true;
}

/** The command did its work: remember its id and answer ok. */
static void Commands_Ok()
{
	if (s_PendingId[0] != '\0')
	{
		if (s_IdRing[s_IdNext][0] != '\0')
		{
			s_IdSeen.Remove(s_IdRing[s_IdNext]);
		}
		strcopy(s_IdRing[s_IdNext], sizeof(s_IdRing[]), s_PendingId);
		s_IdSeen.SetValue(s_PendingId, 1);
		s_IdNext = (s_IdNext + 1) % JB_ID_RING;
		s_PendingId[0] = '\0';
	}
	ReplyToCommand(0, "ok");
}

/** The client that "#userid" names, or 0 after replying with the error. */
static int Commands_Target(const char[] arg)
{
	if (arg[0] != '#' || !IsCharNumeric(arg[1]))
	{
		ReplyToCommand(0, "error: target must be #userid");
		return 0;
	}
	int client = GetClientOfUserId(StringToInt(arg[1]));
	if (client < 1 || !IsClientInGame(client))
	{
		ReplyToCommand(0, "error: no player with userid %s", arg[1]);
		return 0;
	}
	return client;
}

/** A whole number, all of the text: "12", "-5", "+3". */
static bool Commands_Whole(const char[] text, int &value)
{
	return text[0] != '\0' && StringToIntEx(text, value) == strlen(text);
}

/** Seconds since the daemon's last command, or -1 when it has sent none. */
int Commands_LinkAge()
{
	return s_LastCommand == 0 ? -1 : GetTime() - s_LastCommand;
}

void Commands_LastHud(char[] out, int size)
{
	strcopy(out, size, s_LastHud);
}

void Commands_Note(char[] out, int size)
{
	strcopy(out, size, s_Note);
}

public Action Srv_Warn(int args)
{
	if (!Commands_Accept(args, 2, "jb_warn #userid \"text\""))
	{
		return Plugin_Handled;
	}
	char arg[16], text[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, text, sizeof(text));
	int client = Commands_Target(arg);
	if (client > 0)
	{
		PrintToChat(client, "\x07[jailcore]\x01 %s", text);
		PrintCenterText(client, "%s", text);
		Commands_ToAdmins(client, text);
		Commands_Ok();
	}
	return Plugin_Handled;
}

static void Commands_ToAdmins(int client, const char[] text)
{
	for (int i = 1; i <= MaxClients; i++)
	{
		if (i != client && IsClientInGame(i) && Admin_Has(i))
		{
			PrintToChat(i, "\x04[jailcore]\x01 %N: %s", client, text);
		}
	}
}

public Action Srv_Slay(int args)
{
	if (!Commands_Accept(args, 2, "jb_slay #userid \"reason\""))
	{
		return Plugin_Handled;
	}
	char arg[16], reason[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, reason, sizeof(reason));
	int client = Commands_Target(arg);
	if (client < 1)
	{
		return Plugin_Handled;
	}
	if (!IsPlayerAlive(client))
	{
		ReplyToCommand(0, "error: #%d is not alive", GetClientUserId(client));
		return Plugin_Handled;
	}
	LogAction(0, client, "jailcore slayed %L: %s", client, reason);
	ForcePlayerSuicide(client);
	PrintToChatAll("\x07[jailcore]\x01 %N: %s", client, reason);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Teamswap(int args)
{
	if (!Commands_Accept(args, 3, "jb_teamswap #userid <T|CT> \"reason\""))
	{
		return Plugin_Handled;
	}
	char arg[16], team[8], reason[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, team, sizeof(team));
	GetCmdArg(3, reason, sizeof(reason));
	int to = StrEqual(team, "T", false) ? CS_TEAM_T : StrEqual(team, "CT", false) ? CS_TEAM_CT : 0;
	if (to == 0)
	{
		ReplyToCommand(0, "error: team must be T or CT");
		return Plugin_Handled;
	}
	int client = Commands_Target(arg);
	if (client < 1)
	{
		return Plugin_Handled;
	}
	if (GetClientTeam(client) != to)
	{
		LogAction(0, client, "jailcore moved %L to %s: %s", client, team, reason);
		// CS_SwitchTeam keeps him alive and silent; the engine logs the joined-team line.
		CS_SwitchTeam(client, to);
		PrintToChat(client, "\x07[jailcore]\x01 %s", reason);
	}
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Money(int args)
{
	if (!Commands_Accept(args, 2, "jb_money #userid <delta>"))
	{
		return Plugin_Handled;
	}
	char arg[16], delta[16];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, delta, sizeof(delta));
	int amount;
	if (!Commands_Whole(delta, amount))
	{
		ReplyToCommand(0, "error: delta must be a whole number");
		return Plugin_Handled;
	}
	int client = Commands_Target(arg);
	if (client > 0)
	{
		int money = GetEntProp(client, Prop_Send, "m_iAccount") + amount;
		SetEntProp(client, Prop_Send, "m_iAccount", money < 0 ? 0 : money > 65535 ? 65535 : money);
		PrintToChat(client, "\x04[jailcore]\x01 %t", "JB_Money", amount);
		Commands_Ok();
	}
	return Plugin_Handled;
}

public Action Srv_Respawn(int args)
{
	if (!Commands_Accept(args, 1, "jb_respawn #userid"))
	{
		return Plugin_Handled;
	}
	char arg[16];
	GetCmdArg(1, arg, sizeof(arg));
	int client = Commands_Target(arg);
	if (client < 1)
	{
		return Plugin_Handled;
	}
	if (IsPlayerAlive(client))
	{
		ReplyToCommand(0, "error: #%d is alive", GetClientUserId(client));
		return Plugin_Handled;
	}
	CS_RespawnPlayer(client);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Say(int args)
{
	if (!Commands_Accept(args, 1, "jb_say \"text\""))
	{
		return Plugin_Handled;
	}
	char text[256];
	GetCmdArg(1, text, sizeof(text));
	PrintToChatAll("\x04[jailcore]\x01 %s", text);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Hud(int args)
{
	if (!Commands_Accept(args, 1, "jb_hud \"text\""))
	{
		return Plugin_Handled;
	}
	char text[256];
	GetCmdArg(1, text, sizeof(text));
	strcopy(s_LastHud, sizeof(s_LastHud), text);
	PrintHintTextToAll("%s", text);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Note(int args)
{
	if (!Commands_Accept(args, 1, "jb_note \"text\""))
	{
		return Plugin_Handled;
	}
	GetCmdArg(1, s_Note, sizeof(s_Note));
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_CancelProhibition(int args)
{
	if (!Commands_Accept(args, 1, "jb_cancel_prohibition <K>"))
	{
		return Plugin_Handled;
	}
	int index = GetCmdArgInt(1);
	if (index < 1)
	{
		ReplyToCommand(0, "error: K must be a prohibition number from 1");
		return Plugin_Handled;
	}
	Chat_ProhibitionVoid(index);
	PrintToChatAll("\x07[jailcore]\x01 %t", "JB_ProhibitionVoid", index);
	Commands_Ok();
	return Plugin_Handled;
}

/** A JSON string value: quotes, backslashes and control bytes escaped. */
static void Commands_Json(const char[] text, char[] out, int size)
{
	int n = 0;
	for (int i = 0; text[i] != '\0' && n < size - 7; i++)
	{
		int c = text[i];
		if (c == '"' || c == '\\')
		{
			out[n++] = '\\';
			out[n++] = c;
		}
		else if (c >= 0 && c < 0x20)
		{
			n += FormatEx(out[n], size - n, "\\u%04x", c);
		}
		else
		{
			out[n++] = c;
		}
	}
	out[n] = '\0';
}

static void Commands_TeamName(int team, char[] out, int size)
{
	switch (team)
	{
		case CS_TEAM_T: strcopy(out, size, "TERRORIST");
		case CS_TEAM_CT: strcopy(out, size, "CT");
		case CS_TEAM_SPECTATOR: strcopy(out, size, "Spectator");
		default: strcopy(out, size, "Unassigned");
	}
}

public Action Srv_Status(int args)
{
	Commands_Touch();  // any arguments (an id) are ignored: asking twice does no harm
	// One line per player: the reply may run past one RCON packet; the daemon reads it whole.
	char map[PLATFORM_MAX_PATH], jmap[PLATFORM_MAX_PATH * 2], warden[16];
	GetCurrentMap(map, sizeof(map));
	Commands_Json(map, jmap, sizeof(jmap));
	if (g_Warden > 0 && IsClientInGame(g_Warden))
	{
		IntToString(GetClientUserId(g_Warden), warden, sizeof(warden));
	}
	else
	{
		strcopy(warden, sizeof(warden), "null");
	}
	ReplyToCommand(0, "{\"round\": %d, \"map\": \"%s\", \"warden\": %s, \"players\": [", g_Round, jmap, warden);
	bool first = true;
	for (int i = 1; i <= MaxClients; i++)
	{
		if (!IsClientInGame(i) || IsClientSourceTV(i))
		{
			continue;
		}
		char name[MAX_NAME_LENGTH], jname[MAX_NAME_LENGTH * 6], auth[64], team[16];
		GetClientName(i, name, sizeof(name));
		Commands_Json(name, jname, sizeof(jname));
		if (!GetClientAuthId(i, AuthId_Steam2, auth, sizeof(auth)))
		{
			strcopy(auth, sizeof(auth), IsFakeClient(i) ? "BOT" : "STEAM_ID_PENDING");
		}
		Commands_TeamName(GetClientTeam(i), team, sizeof(team));
		bool gagged = GetFeatureStatus(FeatureType_Native, "BaseComm_IsClientGagged") == FeatureStatus_Available
			&& BaseComm_IsClientGagged(i);
		ReplyToCommand(0, "%s{\"userid\": %d, \"steamid\": \"%s\", \"name\": \"%s\", \"team\": \"%s\", \"alive\": %s, \"gagged\": %s}",
			first ? "" : ",", GetClientUserId(i), auth, jname, team, IsPlayerAlive(i) ? "true" : "false", gagged ? "true" : "false");
		first = false;
	}
	ReplyToCommand(0, "]}");
	return Plugin_Handled;
}

public Action Srv_Kick(int args)
{
	if (!Commands_Accept(args, 2, "jb_kick #userid \"reason\""))
	{
		return Plugin_Handled;
	}
	char arg[16], reason[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, reason, sizeof(reason));
	int client = Commands_Target(arg);
	if (client > 0)
	{
		LogAction(0, client, "jailcore kicked %L: %s", client, reason);
		KickClient(client, "%s", reason);
		Commands_Ok();
	}
	return Plugin_Handled;
}

public Action Srv_Ban(int args)
{
	if (!Commands_Accept(args, 3, "jb_ban #userid <minutes> \"reason\""))
	{
		return Plugin_Handled;
	}
	char arg[16], length[16], reason[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, length, sizeof(length));
	GetCmdArg(3, reason, sizeof(reason));
	int minutes;
	if (!Commands_Whole(length, minutes) || minutes < 0)
	{
		ReplyToCommand(0, "error: minutes must be a whole number from 0");
		return Plugin_Handled;
	}
	int client = Commands_Target(arg);
	if (client < 1)
	{
		return Plugin_Handled;
	}
	// SourceMod's own ban: SourceBans and the server's ban list see it as usual.
	if (!BanClient(client, minutes, BANFLAG_AUTO, reason, reason, "jb_ban", 0))
	{
		ReplyToCommand(0, "error: the ban was refused");
		return Plugin_Handled;
	}
	Commands_Ok();
	return Plugin_Handled;
}

// A ban for one who has left, by steamid: SourceMod's BanIdentity (BANFLAG_AUTHID), the path
// basebans' sm_addban takes too. The shim's own command rather than sm_addban itself: it takes
// the daemon's @id like every command (sm_addban would read it as part of the reason) and
// answers one line, ok or error (sm_addban answers in its plugin's words, and SourceBans++'s
// sm_addban only later, from a database callback).
public Action Srv_AddBan(int args)
{
	if (!Commands_Accept(args, 3, "jb_addban \"steamid\" <minutes> \"reason\""))
	{
		return Plugin_Handled;
	}
	char auth[64], length[16], reason[256];
	GetCmdArg(1, auth, sizeof(auth));
	GetCmdArg(2, length, sizeof(length));
	GetCmdArg(3, reason, sizeof(reason));
	if (strncmp(auth, "STEAM_", 6) != 0 && strncmp(auth, "[U:", 3) != 0)
	{
		ReplyToCommand(0, "error: not a steamid: %s", auth);
		return Plugin_Handled;
	}
	int minutes;
	if (!Commands_Whole(length, minutes) || minutes < 0)
	{
		ReplyToCommand(0, "error: minutes must be a whole number from 0");
		return Plugin_Handled;
	}
	if (!BanIdentity(auth, minutes, BANFLAG_AUTHID, reason, "jb_addban", 0))
	{
		ReplyToCommand(0, "error: the ban was refused");
		return Plugin_Handled;
	}
	LogAction(0, -1, "jailcore banned %s (%d min): %s", auth, minutes, reason);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_FkOffer(int args)
{
	if (!Commands_Accept(args, 2, "jb_fk_offer #userid \"text\""))
	{
		return Plugin_Handled;
	}
	char arg[16], text[256];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, text, sizeof(text));
	int client = Commands_Target(arg);
	if (client < 1)
	{
		return Plugin_Handled;
	}
	PrintToChat(client, "\x04[jailcore]\x01 %s", text);
	Fairness_Offer(client);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_Unban(int args)
{
	if (!Commands_Accept(args, 1, "jb_unban \"steamid\""))
	{
		return Plugin_Handled;
	}
	char auth[64];
	GetCmdArg(1, auth, sizeof(auth));
	if (strncmp(auth, "STEAM_", 6) != 0 && strncmp(auth, "[U:", 3) != 0)
	{
		ReplyToCommand(0, "error: not a steamid: %s", auth);
		return Plugin_Handled;
	}
	// SourceMod's own unban: SourceBans and the server's ban list see it as usual. A ban
	// already gone is no error: the pardon wanted exactly that.
	RemoveBan(auth, BANFLAG_AUTHID, "jb_unban", 0);
	LogAction(0, -1, "jailcore lifted the ban of %s", auth);
	Commands_Ok();
	return Plugin_Handled;
}

public Action Srv_CtBanSet(int args)
{
	if (!Commands_Accept(args, 4, "jb_ctban_set #userid <seconds> \"reason\" \"by\""))
	{
		return Plugin_Handled;
	}
	char arg[16], length[16], reason[128], by[64];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, length, sizeof(length));
	GetCmdArg(3, reason, sizeof(reason));
	GetCmdArg(4, by, sizeof(by));
	int seconds;
	if (!Commands_Whole(length, seconds) || seconds < 0)
	{
		ReplyToCommand(0, "error: seconds must be a whole number from 0");
		return Plugin_Handled;
	}
	int client = Commands_Target(arg);
	if (client > 0)
	{
		CtBan_Set(client, seconds, reason, by);
		Commands_Ok();
	}
	return Plugin_Handled;
}

public Action Srv_CtBanClear(int args)
{
	if (!Commands_Accept(args, 1, "jb_ctban_clear #userid"))
	{
		return Plugin_Handled;
	}
	char arg[16];
	GetCmdArg(1, arg, sizeof(arg));
	int client = Commands_Target(arg);
	if (client > 0)
	{
		CtBan_Clear(client);
		Commands_Ok();
	}
	return Plugin_Handled;
}

public Action Srv_AdminFeed(int args)
{
	if (!Commands_Accept(args, 1, "jb_adminfeed \"text\""))
	{
		return Plugin_Handled;
	}
	char text[256];
	GetCmdArg(1, text, sizeof(text));
	for (int i = 1; i <= MaxClients; i++)
	{
		if (IsClientInGame(i) && Admin_Has(i))
		{
			PrintToChat(i, "\x04[jailcore]\x01 %s", text);
		}
	}
	Commands_Ok();
	return Plugin_Handled;
}
