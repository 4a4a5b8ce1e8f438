import sys

from citeview.cli import main

sys.exit(main())
