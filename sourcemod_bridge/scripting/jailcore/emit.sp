/**
 * Every line the bridge writes to the log (protocol section 1). One function per line;
 * all of them go through Emit_Line so that the seq rises by one per line.
 */

static int s_Seq;

/**
 * Free text a player or admin wrote, made safe for a (key "value") property and a chat
 * line: quotes become ', line breaks and tabs a space, other control bytes (chat colours)
 * are dropped.
 */
void Emit_Clean(char[] text, int size)
{
	int n = 0;
	for (int i = 0; i < size && text[i] != '\0'; i++)
	{
		int c = text[i];
		if (c == '"')
		{
			text[n++] = '\'';
		}
		else if (c == '\n' || c == '\r' || c == '\t')
		{
			text[n++] = ' ';
		}
		else if (c >= 0x20)
		{
			text[n++] = c;
		}
	}
	text[n] = '\0';
}

/** Appends ` (key "value")` to props, the value cleaned. */
static void Emit_Prop(char[] props, int size, const char[] key, const char[] value)
{
	char clean[256];
	strcopy(clean, sizeof(clean), value);
	Emit_Clean(clean, sizeof(clean));
	Format(props, size, "%s (%s \"%s\")", props, key, clean);
}

static void Emit_Line(int client, const char[] trigger, const char[] props)
{
	s_Seq++;
	if (client > 0)
	{
		// %L prints Name<userid><auth><> without quotes; the HL standard wants them
		LogToGame("\"%L\" triggered \"%s\"%s (seq \"%d\")", client, trigger, props, s_Seq);
	}
	else
	{
		LogToGame("World triggered \"%s\"%s (seq \"%d\")", trigger, props, s_Seq);
	}
}

static void Emit_Text(int client, const char[] trigger, const char[] key, const char[] value)
{
	char props[300];
	Emit_Prop(props, sizeof(props), key, value);
	Emit_Line(client, trigger, props);
}

void Emit_Hello(const char[] version)
{
	s_Seq = 0;
	LogToGame("World triggered \"jb_hello\" (version \"%s\") (seq \"0\")", version);
}

void Emit_RoundStart(int freeze)
{
	char props[32];
	FormatEx(props, sizeof(props), " (freeze \"%d\")", freeze < 0 ? 0 : freeze);
	Emit_Line(0, "jb_round_start", props);
}

void Emit_Warden(int client)
{
	Emit_Line(client, "jb_warden", "");
}

void Emit_WardenRemoved(int client, const char[] reason)
{
	Emit_Text(client, "jb_warden_removed", "reason", reason);
}

void Emit_Order(int client, const char[] text)
{
	Emit_Text(client, "jb_order", "text", text);
}

void Emit_OrderCancel(int client)
{
	Emit_Line(client, "jb_order_cancel", "");
}

void Emit_Prohibit(int client, const char[] text)
{
	Emit_Text(client, "jb_prohibit", "text", text);
}

void Emit_ProhibitLift(int client, int index)
{
	char props[32];
	FormatEx(props, sizeof(props), " (index \"%d\")", index);
	Emit_Line(client, "jb_prohibit_lift", props);
}

void Emit_GameStart(int client, const char[] game)
{
	Emit_Text(client, "jb_game_start", "game", game);
}

void Emit_GameEnd(int client)
{
	Emit_Line(client, "jb_game_end", "");
}

void Emit_SpecialDay(int client, const char[] day)
{
	Emit_Text(client, "jb_specialday", "day", day);
}

void Emit_Freeday(int client, bool all, int target)
{
	char props[64];
	if (all)
	{
		FormatEx(props, sizeof(props), " (scope \"all\")");
	}
	else
	{
		FormatEx(props, sizeof(props), " (scope \"personal\") (target \"#%d\")", GetClientUserId(target));
	}
	Emit_Line(client, "jb_freeday", props);
}

void Emit_GameApprove(int client, const char[] game)
{
	Emit_Text(client, "jb_game_approve", "game", game);
}

void Emit_Freekill(int client, int victim, bool damageOnly)
{
	char props[64];
	FormatEx(props, sizeof(props), " (victim \"#%d\") (kind \"%s\")", GetClientUserId(victim), damageOnly ? "damage" : "kill");
	Emit_Line(client, "jb_freekill", props);
}

void Emit_LastRequest(int client, const char[] choice)
{
	Emit_Text(client, "jb_lr", "choice", choice);
}

void Emit_Privilege(int client, const char[] kind)
{
	Emit_Text(client, "jb_privilege", "kind", kind);
}

void Emit_Gag(int client, bool gagged)
{
	Emit_Text(client, "jb_gag", "state", gagged ? "on" : "off");
}

// --- admin actions (extensions: the README's table) ------------------------------------------

/** An admin's word on one audit entry (jb_pardon, jb_confirm, jb_dismiss): one line's shape. */
void Emit_AdminWord(int admin, const char[] trigger, const char[] id, const char[] reason)
{
	char props[320];
	Emit_Prop(props, sizeof(props), "id", id);
	Emit_Prop(props, sizeof(props), "reason", reason);
	Emit_Line(admin, trigger, props);
}

void Emit_FkChoice(int client, const char[] choice)
{
	char props[64];
	Emit_Prop(props, sizeof(props), "choice", choice);
	Emit_Line(client, "jb_fk_choice", props);
}

void Emit_CtBan(int admin, int target, const char[] length, const char[] reason)
{
	char props[320];
	FormatEx(props, sizeof(props), " (target \"#%d\")", GetClientUserId(target));
	Emit_Prop(props, sizeof(props), "length", length);
	Emit_Prop(props, sizeof(props), "reason", reason);
	Emit_Line(admin, "jb_ctban", props);
}

void Emit_UnCtBan(int admin, int target)
{
	char props[32];
	FormatEx(props, sizeof(props), " (target \"#%d\")", GetClientUserId(target));
	Emit_Line(admin, "jb_unctban", props);
}

public int Native_ReportPrivilege(Handle plugin, int numParams)
{
	int client = GetNativeCell(1);
	if (client < 1 || client > MaxClients || !IsClientInGame(client))
	{
		return ThrowNativeError(SP_ERROR_NATIVE, "Invalid client %d", client);
	}
	char kind[64];
	GetNativeString(2, kind, sizeof(kind));
	Emit_Privilege(client, kind);
	return 0;
}

public void BaseComm_OnClientGag(int client, bool gagState)
{
	if (client > 0 && IsClientInGame(client))
	{
		Emit_Gag(client, gagState);
	}
}
