"""The live sockets and files: UDP log in, RCON out, MQTT, the daemon loop that performs what
each server's session decides. Imports `log`, `engine`, `config`, `session` and `store`; never
`sim`, `web` or `cli`."""
