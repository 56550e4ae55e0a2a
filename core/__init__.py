"""The platform's infrastructure, below every feature app: who may do what (auth), request checks (middleware),
API pagination, where background work runs, plain-SQL and numpy reads, integer column bounds, download names and
the formula-safe CSV writer. It imports no feature app (.importlinter, contract `core-below`)."""
