import sys

from flow.cli import main

sys.exit(main())
