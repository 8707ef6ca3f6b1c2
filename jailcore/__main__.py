import sys

from jailcore.cli.cli import main

sys.exit(main())
