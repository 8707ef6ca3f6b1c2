/**
 * The daemon's CT bans of the players online (jb_ctban_set / jb_ctban_clear). The daemon
 * keeps and persists them and re-sends them after jb_hello and a resync; this copy only
 * lets the bridge refuse a banned player's join to CT at once, telling him why and for
 * how long, and lets admins see them in game.
 */

enum struct CtBan
{
	bool held;
	int until;          // GetTime() when it ends; 0 holds until the daemon clears it
	char reason[128];
	char by[64];
}

static CtBan s_CtBans[MAXPLAYERS + 1];

void CtBan_Start()
{
	AddCommandListener(CtBan_OnJoinTeam, "jointeam");
}

void CtBan_Set(int client, int seconds, const char[] reason, const char[] by)
{
	s_CtBans[client].held = true;
	s_CtBans[client].until = seconds == 0 ? 0 : GetTime() + seconds;
	strcopy(s_CtBans[client].reason, sizeof(CtBan::reason), reason);
	strcopy(s_CtBans[client].by, sizeof(CtBan::by), by);
}

void CtBan_Clear(int client)
{
	s_CtBans[client].held = false;
}

/** Seconds left of the client's CT ban: 0 for none, -1 for one held until cleared. */
int CtBan_Left(int client)
{
	if (!s_CtBans[client].held)
	{
		return 0;
	}
	if (s_CtBans[client].until == 0)
	{
		return -1;
	}
	int left = s_CtBans[client].until - GetTime();
	if (left <= 0)
	{
		s_CtBans[client].held = false;
		return 0;
	}
	return left;
}

/** One line about the client's CT ban, in `to`'s language: who, why, by whom, how long. */
void CtBan_Describe(int client, int to, char[] out, int size)
{
	int left = CtBan_Left(client);
	SetGlobalTransTarget(to);
	if (left < 0)
	{
		FormatEx(out, size, "%t", "JB_CtBanEntryForever", client, s_CtBans[client].reason, s_CtBans[client].by);
	}
	else
	{
		FormatEx(out, size, "%t", "JB_CtBanEntryLeft", client, s_CtBans[client].reason, s_CtBans[client].by, (left + 59) / 60);
	}
}

static void CtBan_Tell(int client)
{
	int left = CtBan_Left(client);
	if (left < 0)
	{
		PrintToChat(client, "\x07[jailcore]\x01 %t", "JB_CtBanForever", s_CtBans[client].reason, s_CtBans[client].by);
	}
	else
	{
		PrintToChat(client, "\x07[jailcore]\x01 %t", "JB_CtBanLeft", s_CtBans[client].reason, s_CtBans[client].by, (left + 59) / 60);
	}
}

/** `jointeam 3` (CT) and `jointeam 0` (auto-assign, which may land on CT) are refused. */
public Action CtBan_OnJoinTeam(int client, const char[] command, int argc)
{
	if (client < 1 || argc < 1 || !IsClientInGame(client) || CtBan_Left(client) == 0)
	{
		return Plugin_Continue;
	}
	char arg[8];
	GetCmdArg(1, arg, sizeof(arg));
	int team = StringToInt(arg);  // as the engine reads it: anything not a number is 0
	if (team != CS_TEAM_CT && team != CS_TEAM_NONE)
	{
		return Plugin_Continue;
	}
	CtBan_Tell(client);
	if (team == CS_TEAM_NONE && GetClientTeam(client) != CS_TEAM_T)
	{
		ChangeClientTeam(client, CS_TEAM_T);
	}
	return Plugin_Handled;
}
