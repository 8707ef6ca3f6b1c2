"""The session: one sans-IO core per game server. Typed inputs in (a log record, an admin
request, an RCON reply or its loss, a tick of the clock, a peer's network ban), typed effects
out (send, write, mark, publish, expire, tell the other servers); no sockets, no clock, no
disk, like the engine it owns. Imports `log`, `engine` and `config`; never `store`, `io`,
`sim`, `web` or `cli`."""
