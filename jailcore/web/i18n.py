"""The page's words, Russian first (the admins' language) and English."""

from __future__ import annotations

from jailcore.engine.actions import kind_name as step_name
from jailcore.io.audit import DAYS

LANGS = ("ru", "en")

WORDS: dict[str, tuple[str, str]] = {  # key: (Russian, English)
    "live": ("Журнал", "Live log"),
    "story": ("Раунд", "Round"),
    "players": ("Игроки", "Players"),
    "servers": ("Серверы", "Servers"),
    "charts": ("Графики", "Charts"),
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
    "outbox": ("Очередь команд", "Outbox"),
    "last_line": ("Последняя строка", "Last line"),
    "ago": ("{n} назад", "{n} ago"),
    "online": ("Онлайн", "Online"),
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
    "seen_on": ("Сервера", "Servers"),
    "count": ("Наказаний", "Punishments"),
    "charts.by_rule": ("Наказания по дням, по правилам", "Punishments per day, by rule"),
    "charts.by_server": ("Наказания по дням, по серверам", "Punishments per day, by server"),
    "charts.top": ("Чаще всего срабатывают", "Rules that fire most"),
    "charts.weeks": ("Недель", "Weeks"),
    "charts.none": ("За это время наказаний не было.", "No punishments in this time."),
    "public": ("Только чтение", "Read-only"),
    "error": ("Ошибка", "Error"),
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
    "cat.other": ("прочее", "other"),
}

STATUS = {
    "ru": {"pending": "в очереди", "delivered": "выполнено", "failed": "ошибка", "expired": "просрочено",
           "observed": "наблюдение", "advised": "совет", "pardoned": "помилован", "unanswered": "без ответа",
           "dropped": "отменено"},
    "en": {"pending": "pending", "delivered": "delivered", "failed": "failed", "expired": "expired",
           "observed": "observed", "advised": "advised", "pardoned": "pardoned", "unanswered": "unanswered",
           "dropped": "dropped"},
}


class Words:
    """`t("key", n=3)` in the templates."""

    def __init__(self, lang: str):
        self.lang = lang if lang in LANGS else "ru"

    def __call__(self, key: str, **values: object) -> str:
        pair = WORDS.get(key)
        text = pair[LANGS.index(self.lang)] if pair else key
        return text.format(**values) if values else text

    def action(self, kind: str) -> str:
        return step_name(self.lang, kind)

    def status(self, status: str) -> str:
        return STATUS[self.lang].get(status, status)

    def dayname(self, day: int) -> str:
        return DAYS[self.lang][(day - 1) % 7] if day else "-"

    def age(self, seconds: float | None) -> str:
        if seconds is None:
            return "-"
        s = max(0, int(seconds))
        units = ("с", "мин", "ч", "д") if self.lang == "ru" else ("s", "min", "h", "d")
        n, unit = (s, units[0]) if s < 120 else (s // 60, units[1]) if s < 7200 else (s // 3600, units[2]) if s < 172800 else (s // 86400, units[3])
        return self("ago", n=f"{n} {unit}")
