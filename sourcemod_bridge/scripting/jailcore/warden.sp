/**
 * The warden: one alive CT at a time. Where MyJailbreak's warden or Jail Warden Pro is
 * installed, the bridge follows that plugin's warden instead of offering a second one.
 */

// MyJailbreak (warden.inc); declared here so the bridge builds and loads without it.
native bool warden_exist();
native bool warden_iswarden(int client);

int g_Warden;            // client index of the warden, 0 for none
int g_Round;             // rounds started since the map began
bool g_ExternalWarden;   // another plugin owns the warden role

void Warden_Start()
{
	HookEvent("round_start", Warden_OnRoundStart, EventHookMode_PostNoCopy);
	HookEvent("player_death", Warden_OnPlayerDeath);
	HookEvent("player_team", Warden_OnPlayerTeam);
}

void Warden_DetectExternal()
{
	g_ExternalWarden = LibraryExists("warden") || LibraryExists("myjailbreak") || LibraryExists("jwp");
}

public void OnMapStart()
{
	g_Round = 0;
	g_Warden = 0;
}

bool Warden_Is(int client)
{
	return client > 0 && client == g_Warden;
}

/** Claims the role for `client`; false with a phrase key when he may not. */
bool Warden_Claim(int client, char[] why, int size)
{
	if (g_ExternalWarden)
	{
		strcopy(why, size, "JB_WardenExternal");
		return false;
	}
	if (GetClientTeam(client) != CS_TEAM_CT || !IsPlayerAlive(client))
	{
		strcopy(why, size, "JB_WardenOnlyAliveCT");
		return false;
	}
	if (g_Warden != 0)
	{
		strcopy(why, size, "JB_WardenTaken");
		return false;
	}
	Warden_Set(client);
	return true;
}

void Warden_Set(int client)
{
	g_Warden = client;
	Emit_Warden(client);
	PrintToChatAll("\x04[jailcore]\x01 %t", "JB_WardenNew", client);
}

void Warden_Remove(const char[] reason)
{
	if (g_Warden == 0)
	{
		return;
	}
	int client = g_Warden;
	g_Warden = 0;
	Emit_WardenRemoved(client, reason);
	PrintToChatAll("\x04[jailcore]\x01 %t", "JB_WardenGone");
}

public void Warden_OnRoundStart(Event event, const char[] name, bool dontBroadcast)
{
	g_Round++;
	g_Warden = 0;
	// srcds logs Round_Start only when the freeze period ends (CS:S logs nothing at the
	// restart): this line marks the round's real start, before a !w typed in the freeze.
	ConVar freeze = FindConVar("mp_freezetime");  // the game's own: a convar handle is never closed
	Emit_RoundStart(freeze != null ? freeze.IntValue : 0);
}

public void Warden_OnPlayerDeath(Event event, const char[] name, bool dontBroadcast)
{
	int client = GetClientOfUserId(event.GetInt("userid"));
	if (Warden_Is(client))
	{
		Warden_Remove("died");
	}
}

public void Warden_OnPlayerTeam(Event event, const char[] name, bool dontBroadcast)
{
	int client = GetClientOfUserId(event.GetInt("userid"));
	if (Warden_Is(client) && event.GetInt("team") != CS_TEAM_CT)
	{
		Warden_Remove("resigned");
	}
}

void Warden_OnDisconnect(int client)
{
	if (Warden_Is(client))
	{
		Warden_Remove("left");
	}
}

// --- other warden plugins ------------------------------------------------------------------

public void warden_OnWardenCreated(int client)
{
	g_Warden = client;
	Emit_Warden(client);
}

public void warden_OnWardenRemoved(int client)
{
	if (Warden_Is(client))
	{
		g_Warden = 0;
		Emit_WardenRemoved(client, IsClientInGame(client) && IsPlayerAlive(client) ? "resigned" : "died");
	}
}

public void JWP_OnWardenChosen(int client)
{
	warden_OnWardenCreated(client);
}

public void JWP_OnWardenResigned(int client, bool himself)
{
	warden_OnWardenRemoved(client);
}
