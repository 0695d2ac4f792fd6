bench:
	@echo "bench: not yet"
