# syntax=docker/dockerfile:1
# Build: the Swift toolchain image compiles a release binary.
FROM swift:6.1-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev zlib1g-dev libssl-dev libpq-dev libjemalloc-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
# The JavaScript client: Sources/SectionalService/Resources/sectional.mjs and Resources/sectional link to
# clients/js/sectional.mjs and clients/js/sectional/ (served at /sectional.mjs and /sectional/<name>.mjs).
COPY clients ./clients
COPY Tests ./Tests
RUN swift build -c release --product sectional --static-swift-stdlib \
 && install -D .build/release/sectional /out/sectional

# Run: a slim Debian with only the runtime libraries, as a non-root user.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 zlib1g libssl3 libpq5 libjemalloc2 curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --home-dir /srv/sectional --uid 10001 sectional
WORKDIR /srv/sectional
COPY --from=build /out/sectional /usr/local/bin/sectional
COPY config ./config
RUN mkdir -p data && chown sectional:sectional data
USER 10001
# Listens on all interfaces, so it refuses to start without SECTIONAL_API_TOKEN (pass it with -e).
# The config is baked in from config/; mount another over /srv/sectional/config to change it.
ENV SECTIONAL_HOST=0.0.0.0 SECTIONAL_PORT=8080 SECTIONAL_CONFIG=/srv/sectional/config/sectional.json
VOLUME ["/srv/sectional/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/sectional"]
CMD ["serve"]
