# The two commands of the README. Each installs what is missing (Debian 12, as root or with sudo),
# builds, then serves or tests.
.PHONY: run test test-build build deps asan asan-build asan-test release format clean

JOBS ?= 2

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake --preset dev >/dev/null
	@cmake --build --preset dev -j $(JOBS)

# Serves on 127.0.0.1:8080 with the embedded defaults (SQLite under var/, offline model). The admin
# token and master key are generated once into var/ and passed through the environment.
run: build
	@mkdir -p var && chmod 700 var
	@[ -s var/admin.token ] || (umask 077; openssl rand -hex 24 > var/admin.token)
	@[ -s var/master.key ] || (umask 077; build/agentgate gen-master-key > var/master.key)
	@echo "Admin API token: var/admin.token (Authorization: Bearer \$$(cat var/admin.token))"
	@echo "Operator console: http://127.0.0.1:8080/console/ (sign in with the admin token: $$(cat var/admin.token))"
	@AGENTGATE_ADMIN_TOKEN="$$(cat var/admin.token)" AGENTGATE_MASTER_KEY="$$(cat var/master.key)" \
		exec build/agentgate serve --demo $(if $(CONFIG),--config $(CONFIG))

# The store suite and the PostgreSQL tests need a server: start the local cluster when we can
# (root); without one those tests are skipped and say so.
PG_URL = $$(bash scripts/start-postgres.sh 2>/dev/null || true)

# The tests run once, on one build with AddressSanitizer and UndefinedBehaviorSanitizer on
# (build-asan/, -Og): every test is run under the sanitizers, and nothing is compiled twice.
# `make run` serves from the optimised build in build/; someone who runs both compiles both.
test: test-build
	@AGENTGATE_TEST_POSTGRES_URL="$(PG_URL)" ctest --preset asan -j $(JOBS)

test-build: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

# Older names for the same build and suite.
asan: test
asan-build: test-build
asan-test:
	@AGENTGATE_TEST_POSTGRES_URL="$(PG_URL)" ctest --preset asan -j $(JOBS)

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

format:
	@git ls-files -co --exclude-standard '*.cpp' '*.hpp' | xargs clang-format -i

clean:
	@rm -rf build build-asan build-release
