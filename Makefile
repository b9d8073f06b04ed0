# The two commands the README promises:
#   make run    runs labmate against the lab root (default ~/gpuop)
#   make test   runs every test, building and starting what they need
.PHONY: run test build bench release-check

run:
	go run ./cmd/labmate $(ARGS)

build:
	go build -o labmate ./cmd/labmate

test:
	./scripts/test.sh

bench:
	./scripts/bench.sh

release-check:
	./scripts/release-check.sh
