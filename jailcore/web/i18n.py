"""The page's words, Russian first (the admins' language) and English."""

from __future__ import annotations

from datetime import datetime

from jailcore.engine.vocabulary import kind_name as step_name
from jailcore.store.audit import DAYS

LANGS = ("ru", "en")

WORDS: dict[str, tuple[str, str]] = {  # key: (Russian, English)
    "live": ("Журнал", "Live log"),
    "story": ("Раунд", "Round"),
    "players": ("Игроки", "Players"),
    "servers": ("Серверы", "Servers"),
    "charts": ("Графики", "Charts"),
    "ctbans.nav": ("Запреты КТ", "CT bans"),
    "config.nav": ("Конфиг", "Config"),
    "bans.nav": ("Баны", "Bans"),
    "accounts.nav": ("Админы", "Admins"),
    "login": ("Войти", "Log in"),
    "logout": ("Выйти", "Log out"),
    "name": ("Имя", "Name"),
    "password": ("Пароль", "Password"),
    "login.title": ("Вход для администраторов", "Admin login"),
    "login.bad": ("Неверное имя или пароль.", "Wrong name or password."),
    "login.wait": ("Слишком много попыток: подождите {n} с.", "Too many tries: wait {n} s."),
    "login.none": (
        "Администраторов нет: добавьте их командой jailcore web adduser ИМЯ в [web.users].",
        "No admins yet: add one with jailcore web adduser NAME to [web.users].",
    ),
    "server": ("Сервер", "Server"),
    "player": ("Игрок", "Player"),
    "rule": ("Правило", "Rule"),
    "action": ("Наказание", "Action"),
    "since": ("С (30m, 2h, 1d или время)", "Since (30m, 2h, 1d or a time)"),
    "filter": ("Показать", "Show"),
    "all": ("все", "all"),
    "time": ("Время", "Time"),
    "round": ("Раунд", "Round"),
    "round.short": ("раунд {n}", "round {n}"),
    "reason": ("Причина", "Reason"),
    "status": ("Статус", "Status"),
    "live.empty": ("Пока ничего.", "Nothing yet."),
    "live.connected": ("на связи", "live"),
    "live.lost": ("нет связи, переподключение…", "connection lost, reconnecting…"),
    "open.story": ("история раунда", "round story"),
    "pardon": ("Помиловать", "Pardon"),
    "pardon.reason": ("Причина помилования", "Why pardon"),
    "pardoned": ("помилован", "pardoned"),
    "pardoned.by": ("помиловал {by}", "pardoned by {by}"),
    "pardon.waiting": ("ждёт демона", "waiting for the daemon"),
    "pardon.applied": ("применено {at}", "applied {at}"),
    "pardon.done": ("Помилование записано: демон применит его в течение секунды.", "Pardon written: the daemon applies it within a second."),
    "story.pick": ("Выберите сервер и раунд", "Pick a server and a round"),
    "story.none": ("Для этого раунда нет сохранённых строк лога.", "No log lines kept for this round."),
    "story.all": ("Показать все строки", "Show every line"),
    "story.decisions": ("Решения", "Decisions"),
    "story.from": ("из строки", "from the line"),
    "story.start": ("Начало раунда", "Round start"),
    "story.freeze": ("заморозка {seconds} с", "freeze period {seconds} s"),
    "story.play": ("игра с {at}", "play from {at}"),
    "story.noshim": ("по строке srcds (заморозки не видно)", "by srcds's line (no freeze period seen)"),
    "story.after": ("Решения без сохранённой строки", "Decisions without a kept line"),
    "warden": ("Начальник", "Warden"),
    "orders": ("Приказы", "Orders"),
    "prohibitions": ("Запреты", "Prohibitions"),
    "game": ("Игра", "Game"),
    "specialday": ("Особый день", "Special day"),
    "day": ("День", "Day"),
    "week": ("Неделя", "Week"),
    "map": ("Карта", "Map"),
    "cooldown": ("Особый день можно", "Special day allowed"),
    "cooldown.rounds": ("через {n} р.", "in {n} round(s)"),
    "cooldown.now": ("сейчас", "now"),
    "ctbans": ("Запреты за КТ", "CT bans"),
    "mode": ("Режим", "Mode"),
    "mode.enforce": ("наказывает", "enforces"),
    "mode.advise": ("советует админам", "advises admins"),
    "mode.observe": ("только наблюдает", "observes only"),
    "health": ("Состояние", "Health"),
    "health.ok": ("демон работает, RCON на связи", "daemon running, RCON open"),
    "health.unknown": ("демон ещё не отзывался", "no word from its daemon yet"),
    "online.now": ("Сейчас на сервере", "On the server now"),
    "online.none": ("никого", "nobody"),
    "alive": ("жив", "alive"),
    "act.title": ("Действия администратора", "An admin's actions"),
    "act.offline": ("не на сервере", "not on a server"),
    "act.warn": ("Предупредить", "Warn"),
    "act.warn.do": ("Предупредить", "Warn"),
    "act.warn.offline": ("он не на сервере — предупреждение сказать некому.", "he is not on a server: there is nobody to tell."),
    "act.ban": ("Забанить на сервере", "Ban from the server"),
    "act.ban.do": ("Забанить", "Ban"),
    "act.pardon_hint": ("Помиловать — кнопкой у записи ниже; снять запрет за КТ — в списке запретов выше.",
                        "Pardon: the button of an entry below; lift a CT ban: in the list of CT bans above."),
    "act.done.warn": ("Предупреждение записано: демон сервера передаст его в течение секунды.",
                      "Warning written: the server's daemon passes it on within a second."),
    "act.done.ban": ("Бан записан: демон сервера применит его в течение секунды.", "Ban written: the server's daemon applies it within a second."),
    "act.done.ctban": ("Запрет за КТ записан: демон сервера применит его в течение секунды.",
                       "CT ban written: the server's daemon applies it within a second."),
    "act.done.lift": ("Снятие запрета записано: демон сервера применит его в течение секунды.",
                      "Lift written: the server's daemon applies it within a second."),
    "act.no_reason": ("Укажите причину.", "Give a reason."),
    "act.unknown": ("Неизвестное действие.", "Unknown action."),
    "act.no_minutes": ("Укажите срок в минутах (0 — навсегда).", "Give a length in minutes (0: permanent)."),
    "dead": ("мёртв", "dead"),
    "outbox": ("Очередь команд", "Outbox"),
    "plugin": ("Плагин", "Plugin"),
    "plugin.old": ("версия {version} старше ожидаемой {expected}: обновите плагин", "version {version}, older than the {expected} expected: update the plugin"),
    "plugin.update": ("соберите sourcemod_bridge/plugins/jailcore_bridge.smx командой make plugin (или возьмите готовый jailcore_bridge.smx), "
                      "положите его в addons/sourcemod/plugins/ игрового сервера и выполните sm plugins reload jailcore_bridge (или смените карту)",
                      "build sourcemod_bridge/plugins/jailcore_bridge.smx with make plugin (or take the shipped jailcore_bridge.smx), copy it "
                      "to addons/sourcemod/plugins/ on the game server and run sm plugins reload jailcore_bridge (or change the map)"),
    "lost_lines": ("Потеряно строк плагина", "Lost plugin lines"),
    "doubt": ("состояние раунда под сомнением: решает админ", "the round's state is in doubt: an admin decides"),
    "last_line": ("Последняя строка", "Last line"),
    "ago": ("{n} назад", "{n} ago"),
    "online": ("Онлайн", "Online"),
    "waiting.count": ("ждут решения: {n}", "{n} waiting for an answer"),
    "zone": ("Время — по часам серверов; часовой пояс страницы: {zone}.", "Times are the servers' clocks; the page's time zone: {zone}."),
    "health.daemon.stopped": ("демон остановлен ({at})", "daemon stopped ({at})"),
    "health.daemon.stale": ("демон молчит с {at}: упал или завис?", "no word from the daemon since {at}: crashed or hung?"),
    "health.rcon.down": ("нет связи RCON: {state}", "RCON link down: {state}"),
    "health.log.silent": ("лог молчит {span}, а игроки на сервере", "no log line for {span} with players on"),
    "rcon.unreachable": ("сервер недоступен", "unreachable"),
    "rcon.refused": ("пароль не принят", "password refused"),
    "rcon.lost": ("связь потеряна", "connection lost"),
    "rcon.closed": ("закрыто", "closed"),
    "rcon.stopped": ("остановлено", "stopped"),
    "rcon.open": ("на связи", "open"),
    "none": ("нет", "none"),
    "search": ("Имя, steamid или #userid", "Name, steamid or #userid"),
    "find": ("Найти", "Find"),
    "players.none": ("Никого не нашли.", "Nobody found."),
    "record": ("Записи", "Record"),
    "ladders": ("Лестницы наказаний", "Punishment ladders"),
    "ladder.line": ("{rule}: нарушений {n}", "{rule}: {n} offence(s)"),
    "ladder.next": ("следующее: {step}", "next: {step}"),
    "ctban.until": ("до {t}", "until {t}"),
    "ctban.rounds": ("{n} р.", "{n} round(s)"),
    "ctban.forever": ("навсегда", "permanent"),
    "pardons": ("Помилования", "Pardons"),
    "names": ("Имена", "Names"),
    "seen_on": ("Серверы", "Servers"),
    "count": ("Наказаний", "Punishments"),
    "charts.by_rule": ("Наказания по дням, по правилам", "Punishments per day, by rule"),
    "charts.by_server": ("Наказания по дням, по серверам", "Punishments per day, by server"),
    "charts.top": ("Чаще всего срабатывают", "Rules that fire most"),
    "charts.admins": ("Действия администраторов (помилования, запреты за КТ, предупреждения, баны)",
                      "What admins did (pardons, CT bans, warnings, bans)"),
    "charts.weeks": ("Недель", "Weeks"),
    "charts.none": ("За это время наказаний не было.", "No punishments in this time."),
    "charts.no_admins": ("За это время администраторы ничего не меняли.", "Admins changed nothing in this time."),
    "public": ("Только чтение", "Read-only"),
    "error": ("Ошибка", "Error"),
    "ctban.page": ("Запреты за КТ", "CT bans"),
    "bans": ("Баны", "Bans"),
    "bans.state": ("Состояние", "State"),
    "bans.active": ("действуют", "in force"),
    "bans.expired": ("истекли или сняты", "ran out or lifted"),
    "bans.holds": ("действует", "in force"),
    "bans.over": ("не действует", "over"),
    "bans.none": ("Банов нет.", "No bans."),
    "sourcebans": ("Баны SourceBans++ всей сети", "The network's SourceBans++ bans"),
    "sourcebans.ours": ("выдан jailcore, запись", "given by jailcore, entry"),
    "sourcebans.theirs": ("выдан в SourceBans++: меняется там", "given in SourceBans++: changed there"),
    "bans.lift": ("Разбанить", "Unban"),
    "accounts": ("Администраторы", "Admins"),
    "accounts.add": ("Добавить или изменить", "Add or change"),
    "accounts.remove": ("Удалить", "Remove"),
    "accounts.remove.ask": ("Удалить администратора {name}?", "Remove the admin {name}?"),
    "accounts.remove.means": ("Он больше не войдёт, его открытые сессии закончатся на всех страницах в течение секунд; "
                              "удаление будет записано в «Действия».",
                              "He can no longer log in, and his open sessions end on every page within seconds; "
                              "the removal is written to the Activity."),
    "accounts.remove.yes": ("Да, удалить {name}", "Yes, remove {name}"),
    "accounts.last_owner": ("последний владелец: его нельзя удалить", "the last owner: cannot be removed"),
    "accounts.password_hint": ("Пароль (не меньше 8 символов; пусто — не менять)", "Password (8 characters or more; empty: unchanged)"),
    "accounts.role": ("Роль", "Role"),
    "queued": ("Запрос сохранён, но не применён: база данных недоступна ({why}). Он будет применён один раз, как только база вернётся.",
               "Queued, not applied yet: the database is away ({why}). It is applied once, as soon as the database is back."),
    "accounts.nofile": ("У страницы нет базы состояния: учётные записи только для чтения.",
                        "The page has no state database: accounts are read-only."),
    "accounts.name": ("Имя без пробелов, кавычек, точек и скобок, пожалуйста.", "A name without spaces, quotes, dots or brackets, please."),
    "accounts.self": ("Себя нельзя удалить или лишить роли владельца.", "You cannot remove yourself or give up being the owner."),
    "accounts.unknown": ("Такого администратора нет.", "No such admin."),
    "accounts.role_bad": ("Неизвестная роль.", "Unknown role."),
    "accounts.password": ("Пароль не короче 8 символов.", "A password of 8 characters at least."),
    "config": ("Конфиг", "Config"),
    "config.rules": ("Правила сервера", "The server's rules"),
    "config.clause": ("Пункт", "Clause"),
    "config.ladder": ("Лестница", "Ladder"),
    "config.waits": ("Ждёт решения администратора (до {n} мин)", "Waits for an admin (up to {n} min)"),
    "config.returns": ("Ждёт возвращения игрока {n} мин", "Waits {n} min for the player's return"),
    "config.settings": ("Настройки", "Settings"),
    "config.on": ("вкл.", "on"),
    "config.off": ("выкл.", "off"),
    "config.edit": ("Изменить", "Edit"),
    "config.preview": ("Показать изменения", "Show the change"),
    "config.save": ("Сохранить: демон применит за секунду", "Save: the daemon applies it within a second"),
    "config.cancel": ("Отмена", "Cancel"),
    "config.versions": ("Прежние версии", "Earlier versions"),
    "config.rollback": ("Вернуть эту версию", "Roll back to this version"),
    "config.saved": ("Сохранено; прежняя версия: {name}.", "Saved; the earlier version is {name}."),
    "config.nofile": ("Странице не дан файл конфига этого сервера (jailcore web --config ФАЙЛ): только просмотр.",
                      "The page was not given this server's config file (jailcore web --config FILE): view only."),
    "config.diff": ("Изменения в {path}", "The change to {path}"),
    "config.same": ("Ничего не меняется.", "Nothing changes."),
    "activity.config": ("изменил конфиг", "edited the config"),
    "ctban.left": ("осталось {n} мин", "{n} min left"),
    "min": ("{n} мин", "{n} min"),
    "activity": ("Действия", "Activity"),
    "ctban.active": ("Действуют", "In force"),
    "ctban.waiting": ("Ждут демона", "Waiting for the daemon"),
    "ctban.past": ("История запросов", "Past requests"),
    "ctban.add": ("Выдать запрет за КТ", "Give a CT ban"),
    "ctban.give": ("Выдать", "Give"),
    "ctban.change": ("Изменить", "Change"),
    "ctban.lift": ("Снять", "Lift"),
    "ctban.lifted": ("снят", "lifted"),
    "ctban.steamid": ("SteamID (STEAM_0/1, [U:1:N] или SteamID64)", "SteamID (STEAM_0/1, [U:1:N] or SteamID64)"),
    "ctban.minutes": ("Минут (0 — навсегда)", "Minutes (0: permanent)"),
    "ctban.rounds_field": ("или раундов", "or rounds"),
    "ctban.by": ("Выдал", "By"),
    "ctban.rules": ("по правилам", "by the rules"),
    "ctban.no_server": ("Выберите сервер.", "Pick a server."),
    "ctban.no_steamid": ("Это не SteamID: нужен STEAM_0:X:Y, STEAM_1:X:Y, [U:1:N] или SteamID64.",
                         "Not a SteamID: give STEAM_0:X:Y, STEAM_1:X:Y, [U:1:N] or a SteamID64."),
    "ctban.no_length": ("Укажите срок: минуты или раунды (одно из двух).", "Give a length: minutes or rounds (one of them)."),
    "ctban.none": ("Запретов нет.", "No CT bans."),
    "steam": ("профиль Steam", "Steam profile"),
    "csv": ("Скачать CSV", "Download CSV"),
    "activity.pardon": ("помиловал", "pardoned"),
    "activity.ctban.give": ("выдал запрет за КТ", "gave a CT ban"),
    "activity.ctban.lift": ("снял запрет за КТ", "lifted a CT ban"),
    "activity.act.warn": ("предупредил", "warned"),
    "activity.act.ban": ("забанил", "banned"),
    "activity.none": ("Пока ничего.", "Nothing yet."),
    "activity.account.added": ("добавил администратора", "added the admin"),
    "activity.account": ("учётная запись", "the account"),
    "activity.account.imported": ("перенесена из [web.users] конфига", "taken from [web.users] in the config"),
    "activity.role": ("роль", "role"),
    "activity.account.password": ("сменил пароль администратора", "changed the password of the admin"),
    "activity.account.role": ("сменил роль администратора", "changed the role of the admin"),
    "activity.account.password_role": ("сменил пароль и роль администратора", "changed the password and role of the admin"),
    "activity.account.removed": ("удалил администратора", "removed the admin"),
    "activity.refused": ("— запрос из очереди отклонён, когда база вернулась", "— a queued request, refused when the database was back"),
    "applied": ("применено", "applied"),
    "role.viewer": ("наблюдатель", "viewer"),
    "role.moderator": ("модератор", "moderator"),
    "role.admin": ("администратор", "admin"),
    "role.owner": ("владелец", "owner"),
    "role.refused": ("Не хватает прав: вы {role}, а нужно {needed} или выше.", "Not allowed: you are a {role}; this needs a {needed} or above."),
    "player.unknown": ("Игрок {who} не найден: о нём нет ни одной записи.", "No player {who}: there is no record of him."),
    "page.older": ("Старше →", "Older →"),
    "page.next": ("Дальше →", "Next →"),
    "page.previous": ("← Назад", "← Back"),
    "page.newest": ("← К новым", "← Newest"),
    "back": ("Назад", "Back"),
    "forbidden": ("Запрещено: нет сессии или CSRF-токена.", "Forbidden: no session or no CSRF token."),
    "unconfigured": ("нет конфига", "no config"),
    "everyone": ("всем", "everyone"),
    "cat.warden": ("начальник", "warden"),
    "cat.order": ("приказ", "order"),
    "cat.prohibition": ("запрет", "prohibition"),
    "cat.game": ("игра", "game"),
    "cat.specialday": ("особый день", "special day"),
    "cat.kill": ("убийство", "kill"),
    "cat.team": ("команда", "team"),
    "cat.chat": ("чат", "chat"),
    "cat.round": ("раунд", "round"),
    "cat.conduct": ("поведение", "conduct"),
    "cat.admin": ("администратор", "admin"),
    "cat.other": ("прочее", "other"),
}

STATUS = {
    "ru": {"pending": "в очереди", "delivered": "выполнено", "failed": "ошибка", "expired": "просрочено",
           "observed": "наблюдение", "advised": "совет", "pardoned": "помилован", "unanswered": "без ответа",
           "dropped": "отменено", "owed": "ждёт возвращения"},
    "en": {"pending": "pending", "delivered": "delivered", "failed": "failed", "expired": "expired",
           "observed": "observed", "advised": "advised", "pardoned": "pardoned", "unanswered": "unanswered",
           "dropped": "dropped", "owed": "owed (on his return)"},
}


RULES: dict[str, tuple[str, str]] = {  # a rule's key in words: (Russian, English)
    "calendar.freeday": ("ФД по дням недели", "Freedays by weekday"),
    "calendar.freeday_end": ("Конец ФД", "End of a freeday"),
    "calendar.global_games": ("Глобальные игры по дням", "Global games by day"),
    "calendar.personal_freeday": ("Личный ФД", "Personal freeday"),
    "calendar.rebellion": ("Бунт не в свой день", "Rebellion on the wrong day"),
    "conduct.advertising": ("Реклама", "Advertising"),
    "conduct.game_privileges": ("Привилегии во время игр", "Privileges during games"),
    "conduct.language": ("Мат и оскорбления", "Swearing and insults"),
    "conduct.grenade_spam": ("Спам гранатами", "Grenade spam"),
    "conduct.names": ("Ники", "Names"),
    "conduct.privileges": ("Злоупотребление привилегиями", "Privilege abuse"),
    "conduct.teamkill": ("Убийство своих", "Team kill"),
    "ctban": ("Запрет за КТ", "CT ban"),
    "ctban.return_block": ("Запрет вернуться за КТ", "No return to CT"),
    "fairness.freekill": ("Компенсация за фрикилл", "Freekill compensation"),
    "fairness.guard_freekill": ("Фрикилл охраны", "A guard's freekill"),
    "games.deaths": ("Смерти в игре", "Deaths in a game"),
    "games.duration": ("Длительность игры", "Game length"),
    "games.gagged": ("Игра при муте", "A game while gagged"),
    "games.head_start": ("Фора перед глобальной игрой", "A global game's head start"),
    "games.global_suicide": ("Самоубийство в глобальной игре", "Suicide in a global game"),
    "games.host": ("Ведущий игры", "The game's host"),
    "games.host_death": ("Смерть ведущего", "The host's death"),
    "games.min_players": ("Минимум игроков", "Fewest players"),
    "games.online_limit": ("Игры по онлайну", "Games by players online"),
    "games.only_warden_kills": ("Убивает только начальник", "Only the warden kills"),
    "games.repeat": ("Повтор игры", "A game repeated"),
    "games.unknown": ("Неизвестная игра", "An unknown game"),
    "killing.explain": ("Объяснить убийство", "Explaining a kill"),
    "killing.explain_abuse": ("Злоупотребление объяснениями", "Abusing the right to an explanation"),
    "lastrequest.duel_stakes": ("Ставки дуэли", "A duel's stakes"),
    "lastrequest.guard_suicide": ("Самоубийство охраны при последнем желании", "A guard's suicide at the last request"),
    "lastrequest.one_wish": ("Одно желание", "One wish"),
    "lastrequest.timeout": ("Время последнего желания", "The last request's time"),
    "orders": ("Приказы", "Orders"),
    "prohibitions.max": ("Число запретов", "Number of prohibitions"),
    "referee": ("Судья игр", "Game referee"),
    "specialday.cooldown": ("Перерыв между особыми днями", "Rounds between special days"),
    "teams.balance": ("Баланс команд", "Team balance"),
    "teams.no_warden": ("Без начальника", "No warden"),
    "warden.immortality": ("Бессмертие начальника", "The warden's immortality"),
    "warden.last_prisoner": ("Последний заключённый", "The last prisoner"),
}
_UNITS = {"ru": {"m": "мин", "r": "р.", "h": "ч", "d": "д"}, "en": {"m": "min", "r": "round(s)", "h": "h", "d": "d"}}


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
TEAMS = {  # a team as the HL log names it
    "ru": {"Unassigned": "без команды", "Spectator": "наблюдатели", "TERRORIST": "Т", "CT": "КТ"},
    "en": {"Unassigned": "no team", "Spectator": "spectators", "TERRORIST": "T", "CT": "CT"},
}
LOG_WORDS = {  # the words of a log line a round's story says in the page's language: a warden's end (protocol.md), the map's damage
    "ru": {"died": "погиб", "resigned": "сложил полномочия", "left": "вышел с сервера", "admin": "снят администратором",
           "world": "урон от карты"},
    "en": {"died": "died", "resigned": "resigned", "left": "left the server", "admin": "removed by an admin", "world": "the map"},
}


def zone() -> str:
    """The page machine's time zone, as an admin reads it: «MSK, UTC+03:00»."""
    now = datetime.now().astimezone()
    offset = now.strftime("%z")
    utc = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
    name = now.tzname() or ""
    return f"{name}, {utc}" if name and not name.startswith(("+", "-")) and name != "UTC" else utc


class Words:
    """`t("key", n=3)` in the templates. `year`: the page's year, which a date of it leaves out."""

    def __init__(self, lang: str, year: int | None = None):
        self.lang = lang if lang in LANGS else "ru"
        self.year = year

    def __call__(self, key: str, **values: object) -> str:
        pair = WORDS.get(key)
        text = pair[LANGS.index(self.lang)] if pair else key
        return text.format(**values) if values else text

    def action(self, kind: str) -> str:
        if kind == "slay" and self.lang == "ru":  # «убийство» is what a player does; what an admin gives is a slay
            return "слэй"
        return step_name(self.lang, kind)

    def rule(self, key: str) -> str:
        pair = RULES.get(key)
        return pair[LANGS.index(self.lang)] if pair else key

    def title(self, key: str, ref: str | None) -> str:
        """A rule's title as it stands after its clause, without saying a word twice: «ФД 1» «по дням
        недели», not «ФД 1» «ФД по дням недели»."""
        title = self.rule(key)
        first, _, rest = title.partition(" ")
        if ref and rest and first.casefold() == ref.strip().split(" ")[0].casefold():
            return rest
        return title

    def titled(self, key: str, ref: str | None) -> str:
        """A rule's clause and its title: «ФД 1 по дням недели»."""
        return f"{(ref or '').strip()} {self.title(key, ref)}".strip()

    def step(self, text: str) -> str:
        """A ladder step as the config writes it ("ctban 30m", "autoslay 2", "ban 0") in words:
        «запрет за КТ 30 мин», «бан навсегда», "permanent ban"."""
        kind, _, rest = str(text).partition(" ")
        rest = rest.strip()
        if rest == "0" and kind in ("ban", "ctban"):
            return f"{self.action(kind)} навсегда" if self.lang == "ru" else f"permanent {self.action(kind)}"
        if rest[-1:] in _UNITS[self.lang] and rest[:-1].isdigit():
            rest = f"{rest[:-1]} {_UNITS[self.lang][rest[-1]]}"
        elif rest.isdigit() and kind in ("ban", "ctban"):  # a bare number is minutes
            rest = f"{rest} {_UNITS[self.lang]['m']}"
        return f"{self.action(kind)} {rest}".strip()

    def status(self, status: str) -> str:
        return STATUS[self.lang].get(status, status)

    def team(self, name: str) -> str:
        return TEAMS[self.lang].get(name, name)

    def dayname(self, day: int) -> str:
        return DAYS[self.lang][(day - 1) % 7] if day else "-"

    def when(self, stamp: object, seconds: bool = True) -> str:
        """A time of the log ("2026-12-01T20:39:35") as the page's language writes it: «01.12 20:39:35»
        (the year only when it is not this one), "1 Dec 20:39:35"; anything else as it is."""
        text = str(stamp or "")
        try:
            at = datetime.fromisoformat(text[:19])
        except ValueError:
            return text.replace("T", " ")
        clock = at.strftime("%H:%M:%S" if seconds else "%H:%M") if len(text) > 10 else ""
        year = "" if at.year == self.year else (f".{at.year}" if self.lang == "ru" else f" {at.year}")
        day = f"{at.day:02d}.{at.month:02d}{year}" if self.lang == "ru" else f"{at.day} {_MONTHS[at.month - 1]}{year}"
        return f"{day} {clock}".strip()

    def date(self, stamp: object) -> str:
        """A day alone: «01.12», "1 Dec"."""
        return self.when(str(stamp or "")[:10])

    def span(self, seconds: float | None) -> str:
        """A length of time in words: «45 с», «12 мин», "3 h"."""
        if seconds is None:
            return "-"
        s = max(0, int(seconds))
        units = ("с", "мин", "ч", "д") if self.lang == "ru" else ("s", "min", "h", "d")
        n, unit = (s, units[0]) if s < 120 else (s // 60, units[1]) if s < 7200 else (s // 3600, units[2]) if s < 172800 else (s // 86400, units[3])
        return f"{n} {unit}"

    def health(self, word: str, detail: str) -> str:
        """One problem of a server's daemon (data.health) in words."""
        if word == "rcon.down":
            return self("health.rcon.down", state=self(f"rcon.{detail}") if f"rcon.{detail}" in WORDS else detail)
        if word == "log.silent":
            return self("health.log.silent", span=self.span(float(detail) if detail.isdigit() else None))
        return self(f"health.{word}", at=self.when(detail))

    def age(self, seconds: float | None) -> str:
        return "-" if seconds is None else self("ago", n=self.span(seconds))
