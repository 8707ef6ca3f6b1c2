"""The only asynchronous code: UDP log in, RCON out, storage, the daemon loop."""
