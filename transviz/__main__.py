from transviz.cli import launch

raise SystemExit(launch())
