import sys

if sys.argv[1:2] == ["proxy"]:
    # A client waits for the server it starts: the stdio proxy runs without the rest of the command line's imports.
    from flow.proxy.stdio import main as proxy

    sys.exit(proxy(sys.argv[2:]))

from flow.cli import main

sys.exit(main())
