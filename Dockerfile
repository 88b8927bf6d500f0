# bua's container image, for CI systems that run jobs in containers and
# for Kubernetes: Debian slim, Chromium, the fonts real pages need, tini
# and bua, run as the non-root user bua (uid 1000) so that Chromium's
# sandbox stays on (bua passes --no-sandbox only as root). The sandbox
# needs user namespaces, which Docker's default seccomp profile refuses:
# docs/ci.md#container-image says how to run it, in CI and in Kubernetes.
#
#   docker build -t bua .
#
# The image's install steps are one script, scripts/container/install,
# which scripts/container/test also runs, without Docker, in a Debian root
# filesystem built with mmdebstrap, and then runs a flow there as uid 1000
# with the sandbox on.
#
# The bua binary comes one of two ways (--build-arg BUA_BINARY=...):
#   source    (the default) built here from this checkout, with the Go of
#             go.mod (GO_VERSION; internal/devbuild's test keeps the two
#             equal) and the flags of every development build: the stage
#             runs internal/devbuild's build command itself. `docker build
#             .` works from a checkout, for any platform (the build runs on
#             the build machine's CPU and cross-compiles: CGO is off).
#   prebuilt  taken from the build context at $TARGETPLATFORM/bua
#             (linux/amd64/bua, linux/arm64/bua), the layout of
#             GoReleaser's dockers_v2 context: the release's image holds
#             the very binary of the release archives, version-stamped,
#             and nothing is compiled twice. The context also needs
#             scripts/container/install (dockers_v2's extra_files).
# Either way needs BuildKit (docker buildx; `docker build` since Docker
# 23), which builds only the stage BUA_BINARY names.

ARG GO_VERSION=1.26.8
ARG DEBIAN_IMAGE=debian:bookworm-slim
ARG BUA_BINARY=source

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS bua-source
ARG TARGETOS
ARG TARGETARCH
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go run ./internal/devbuild/build -os "$TARGETOS" -arch "$TARGETARCH" /out/bua

FROM scratch AS bua-prebuilt
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/bua /out/bua

FROM bua-${BUA_BINARY} AS bua

FROM ${DEBIAN_IMAGE}
# The binary and the script are bound in for the one RUN, not copied: no
# layer keeps a second copy of either.
RUN --mount=type=bind,from=bua,source=/out/bua,target=/tmp/bua \
    --mount=type=bind,source=scripts/container/install,target=/tmp/install \
    sh /tmp/install /tmp/bua
# Numeric, so that Kubernetes' runAsNonRoot can check it; the user
# scripts/container/install created, with its home in /home/bua.
USER 1000:1000
WORKDIR /work
# tini as PID 1 reaps bua's detached daemon and Chromium's helpers and
# passes signals on. An ENTRYPOINT of tini alone keeps the image a plain
# shell environment for CI systems that run their own commands in it
# (GitLab's `image:`, Kubernetes' args).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["bua", "--help"]
LABEL org.opencontainers.image.title="bua" \
      org.opencontainers.image.description="bua and a headless Chromium, run as a non-root user with Chromium's sandbox on" \
      org.opencontainers.image.source="https://github.com/bua-dev/bua" \
      org.opencontainers.image.licenses="Apache-2.0"
