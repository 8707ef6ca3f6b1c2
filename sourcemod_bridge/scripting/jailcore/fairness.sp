/**
 * 004 4.5: a freekilled prisoner «самостоятельно выбирает между возрождением и Свободным
 * днём». The daemon offers the choice (jb_fk_offer); the prisoner answers in chat
 * (!fkchoice respawn | freeday) and the bridge reports it (jb_fk_choice). It decides
 * nothing itself: the daemon respawns him, or gives the freeday, or gives the freeday when
 * a respawn is no longer possible.
 */

static bool s_Offered[MAXPLAYERS + 1];

void Fairness_Start()
{
	RegConsoleCmd("sm_fkchoice", Cmd_FkChoice, "After a confirmed freekill: !fkchoice respawn | freeday");
}

void Fairness_Clear(int client)
{
	s_Offered[client] = false;
}

/** The daemon offered him the choice (jb_fk_offer, in commands.sp). */
void Fairness_Offer(int client)
{
	s_Offered[client] = true;
	PrintToChat(client, "\x04[jailcore]\x01 %t", "JB_FkChoose");
}

public Action Cmd_FkChoice(int client, int args)
{
	if (client < 1 || !s_Offered[client])
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_FkNoOffer");
		return Plugin_Handled;
	}
	char choice[16];
	GetCmdArg(1, choice, sizeof(choice));
	bool respawn = StrEqual(choice, "respawn", false);
	if (!respawn && !StrEqual(choice, "freeday", false))
	{
		ReplyToCommand(client, "[jailcore] %t", "JB_FkChoose");
		return Plugin_Handled;
	}
	s_Offered[client] = false;
	Emit_FkChoice(client, respawn ? "respawn" : "freeday");
	return Plugin_Handled;
}
