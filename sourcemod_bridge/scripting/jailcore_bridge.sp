/**
 * jailcore bridge: the jailcore daemon's eyes and hands inside the game.
 *
 * It keeps no rules. It reports facts as HL-standard `triggered` lines in the server log
 * (LogToGame with %L and a rising seq), and it executes the daemon's RCON commands on
 * #userid targets. Every decision is the daemon's. Protocol: jailcore's shared/protocol.md
 * and this folder's README (the extensions).
 */

#pragma semicolon 1
#pragma newdecls required

#include <sourcemod>
#include <sdktools>
#include <cstrike>

#undef REQUIRE_PLUGIN
#include <basecomm>
#define REQUIRE_PLUGIN

#define JAILCORE_BRIDGE  // the bridge provides what its include declares
#include <jailcore>

#define JB_VERSION "1.2.0"  // 1.1: command ids, kick, ban, CT bans held, the admin feed and commands; 1.2: the round line (jb_round_start). The daemon expects this (PLUGIN_VERSION)

public Plugin myinfo =
{
	name = "jailcore bridge",
	author = "jailcore",
	description = "Reports jail facts to the jailcore daemon and executes its commands",
	version = JB_VERSION,
	url = ""
};

#include "jailcore/emit.sp"
#include "jailcore/warden.sp"
#include "jailcore/chat.sp"
#include "jailcore/fairness.sp"
#include "jailcore/commands.sp"
#include "jailcore/ctban.sp"
#include "jailcore/admin.sp"

public APLRes AskPluginLoad2(Handle myself, bool late, char[] error, int err_max)
{
	// Other warden plugins and basecomm are optional: the bridge loads without them.
	MarkNativeAsOptional("warden_exist");
	MarkNativeAsOptional("warden_iswarden");
	MarkNativeAsOptional("BaseComm_IsClientGagged");
	CreateNative("JailCore_ReportPrivilege", Native_ReportPrivilege);
	RegPluginLibrary("jailcore_bridge");
	return APLRes_Success;
}

public void OnPluginStart()
{
	LoadTranslations("common.phrases");
	LoadTranslations("jailcore_bridge.phrases");
	Warden_Start();
	Chat_Start();
	Commands_Start();
	CtBan_Start();
	Admin_Start();
	Fairness_Start();
	AutoExecConfig(true, "jailcore_bridge");
	Emit_Hello(JB_VERSION);
}

public void OnClientConnected(int client)
{
	CtBan_Clear(client);  // the slot's last player may have left banned
}

public void OnClientDisconnect(int client)
{
	Warden_OnDisconnect(client);
	CtBan_Clear(client);
	Fairness_Clear(client);
}

public void OnAllPluginsLoaded()
{
	Warden_DetectExternal();
}

public void OnLibraryAdded(const char[] name)
{
	Warden_DetectExternal();
}

public void OnLibraryRemoved(const char[] name)
{
	Warden_DetectExternal();
}
