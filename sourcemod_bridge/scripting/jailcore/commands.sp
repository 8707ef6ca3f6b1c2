/**
 * The daemon's commands (protocol section 2): server commands, so they run from the
 * server console and RCON only. Each checks its arguments, acts on #userid targets
 * only, and answers one line: "ok" or "error: <why>".
 */

void Commands_Start()
{
	RegServerCmd("jb_warn", Srv_Warn, "jb_warn #userid \"text\": warn a player");
	RegServerCmd("jb_slay", Srv_Slay, "jb_slay #userid \"reason\": slay a player");
	RegServerCmd("jb_teamswap", Srv_Teamswap, "jb_teamswap #userid <T|CT> \"reason\": move a player");
	RegServerCmd("jb_money", Srv_Money, "jb_money #userid <delta>: add or remove money");
	RegServerCmd("jb_respawn", Srv_Respawn, "jb_respawn #userid: respawn a player");
	RegServerCmd("jb_say", Srv_Say, "jb_say \"text\": a message to everyone");
	RegServerCmd("jb_hud", Srv_Hud, "jb_hud \"text\": the standing state line");
	RegServerCmd("jb_cancel_prohibition", Srv_CancelProhibition, "jb_cancel_prohibition <K>: prohibition K is void");
	RegServerCmd("jb_status", Srv_Status, "jb_status: the state as one JSON object");
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

static bool Commands_Args(int args, int want, const char[] usage)
{
	if (args != want)
	{
		ReplyToCommand(0, "error: usage: %s", usage);
		return false;
	}
	return true;
}

public Action Srv_Warn(int args)
{
	if (!Commands_Args(args, 2, "jb_warn #userid \"text\""))
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
		ReplyToCommand(0, "ok");
	}
	return Plugin_Handled;
}

static void Commands_ToAdmins(int client, const char[] text)
{
	for (int i = 1; i <= MaxClients; i++)
	{
		if (i != client && IsClientInGame(i) && CheckCommandAccess(i, "sm_jailcore_admin", ADMFLAG_GENERIC))
		{
			PrintToChat(i, "\x04[jailcore]\x01 %N: %s", client, text);
		}
	}
}

public Action Srv_Slay(int args)
{
	if (!Commands_Args(args, 2, "jb_slay #userid \"reason\""))
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
	ReplyToCommand(0, "ok");
	return Plugin_Handled;
}

public Action Srv_Teamswap(int args)
{
	if (!Commands_Args(args, 3, "jb_teamswap #userid <T|CT> \"reason\""))
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
	ReplyToCommand(0, "ok");
	return Plugin_Handled;
}

public Action Srv_Money(int args)
{
	if (!Commands_Args(args, 2, "jb_money #userid <delta>"))
	{
		return Plugin_Handled;
	}
	char arg[16], delta[16];
	GetCmdArg(1, arg, sizeof(arg));
	GetCmdArg(2, delta, sizeof(delta));
	int amount;
	if (StringToIntEx(delta, amount) != strlen(delta) || delta[0] == '\0')
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
		ReplyToCommand(0, "ok");
	}
	return Plugin_Handled;
}

public Action Srv_Respawn(int args)
{
	if (!Commands_Args(args, 1, "jb_respawn #userid"))
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
	ReplyToCommand(0, "ok");
	return Plugin_Handled;
}

public Action Srv_Say(int args)
{
	if (!Commands_Args(args, 1, "jb_say \"text\""))
	{
		return Plugin_Handled;
	}
	char text[256];
	GetCmdArg(1, text, sizeof(text));
	PrintToChatAll("\x04[jailcore]\x01 %s", text);
	ReplyToCommand(0, "ok");
	return Plugin_Handled;
}

public Action Srv_Hud(int args)
{
	if (!Commands_Args(args, 1, "jb_hud \"text\""))
	{
		return Plugin_Handled;
	}
	char text[256];
	GetCmdArg(1, text, sizeof(text));
	PrintHintTextToAll("%s", text);
	ReplyToCommand(0, "ok");
	return Plugin_Handled;
}

public Action Srv_CancelProhibition(int args)
{
	if (!Commands_Args(args, 1, "jb_cancel_prohibition <K>"))
	{
		return Plugin_Handled;
	}
	int index = GetCmdArgInt(1);
	if (index < 1)
	{
		ReplyToCommand(0, "error: K must be a prohibition number from 1");
		return Plugin_Handled;
	}
	PrintToChatAll("\x07[jailcore]\x01 %t", "JB_ProhibitionVoid", index);
	ReplyToCommand(0, "ok");
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
