# One image per app of the hub:
#   docker build --build-arg APP=api -t automation-hub-api .          (APP: api | dispatcher | event-relay)
# The build stage installs the whole workspace exactly as locked and bundles the app
# (tooling/build-app.mjs: dist/main.js, and dist/migrate.js, the migrate command every image
# carries); `pnpm deploy` then copies that app with only its production dependencies, including
# @hub/db's package.json, drizzle/ migrations and functions/ files, which the app reads at run
# time to migrate or check the database. Migrate once per release with the same image:
#   docker run --rm -e DATABASE_URL=… automation-hub-api node dist/migrate.js
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS build
# See scripts/lib/toolchain.sh for why corepack's signature check is skipped (pnpm's version is
# pinned in package.json).
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    COREPACK_INTEGRITY_KEYS=0 \
    TURBO_TELEMETRY_DISABLED=1 \
    CI=true
RUN corepack enable pnpm
WORKDIR /repo
# Dependencies first, from the lockfile alone, so this layer survives source changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --frozen-lockfile
COPY . .
RUN pnpm install --frozen-lockfile --offline
ARG APP
RUN case "$APP" in api|dispatcher|event-relay) ;; \
      *) echo "build with --build-arg APP=api|dispatcher|event-relay (got '$APP')" >&2; exit 1 ;; \
    esac
RUN pnpm turbo run build --filter="@hub/${APP}"
# --legacy: the workspace does not inject workspace packages, which pnpm 10's deploy otherwise needs.
RUN pnpm --filter="@hub/${APP}" deploy --prod --legacy /out \
 && rm -rf /out/src /out/test /out/.turbo /out/*.config.ts /out/tsconfig.json

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and only readable by the app's user: the process cannot rewrite its own code.
COPY --from=build /out /app
USER node
# Only the API serves on it; the dispatcher and the relay serve /metrics and /healthz on
# HUB_DISPATCHER_METRICS_PORT (9464) and HUB_RELAY_METRICS_PORT (9465).
EXPOSE 8000
CMD ["node", "--enable-source-maps", "dist/main.js"]
