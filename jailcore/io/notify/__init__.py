"""Notifications (protocol section 4): what needs an admin, to Discord, Telegram and a plain
webhook, from a durable queue in the state database. `notifier` runs beside the daemons of a
`jailcore run` process; `text` says each event for each sink (pure); `post` is one request and
what its answer means."""
