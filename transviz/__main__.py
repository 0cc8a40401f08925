from transviz.cli import main

raise SystemExit(main())
