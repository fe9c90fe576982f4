# syntax=docker/dockerfile:1
# One image for every Assay process: `worker` (default) and `api` (see docker-compose.yml, k8s/).

# --- build: compile TypeScript with the dev toolchain ----------------------------------------
FROM node:24-slim AS build
WORKDIR /app
# bin/ is the launcher's package (a file: dependency), so npm ci needs it; scripts/ is not there yet,
# so npm ci's `prepare` builds nothing here
COPY package.json package-lock.json ./
COPY bin ./bin
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
# the one build path (npm run build = scripts/build.mjs): tsc and the build stamp;
# unlike `prepare`, a failed build fails the image
RUN npm run build

# --- runtime: production dependencies only, non-root, a real PID 1 ----------------------------
FROM node:24-slim AS runtime
# dumb-init as PID 1 forwards SIGTERM to node, so workers hand their jobs back before the pod dies
RUN apt-get update \
 && apt-get install -y --no-install-recommends dumb-init \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    ASSAY_DATA_DIR=/data \
    ASSAY_LOG_FORMAT=json \
    ASSAY_WORKER_HEALTH_PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin ./bin
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# the filesystem pack library (src/pack-files/directory.ts) looks for domain-packs/ above the compiled modules
COPY domain-packs ./domain-packs
RUN groupadd --system --gid 10001 assay \
 && useradd --system --uid 10001 --gid assay --home-dir /app --no-create-home assay \
 && mkdir -p /data && chown assay:assay /data
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["dumb-init", "--", "node", "dist/src/cli/main.js"]
CMD ["worker"]
