"""The live sockets and files: UDP log in, RCON out, the state database and its read side,
MQTT, the daemon loop. Imports `log`, `engine`, `config`; never `sim`, `web` or `cli`."""
