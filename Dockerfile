# syntax=docker/dockerfile:1
# One image for every Assay process: `worker` (default) and `api` (see docker-compose.yml, k8s/).

# --- build: compile TypeScript with the dev toolchain ----------------------------------------
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY queues ./queues
COPY workers ./workers
# prompt templates are read next to the compiled modules (new URL('./prompts/…', import.meta.url))
RUN npx tsc -p tsconfig.build.json \
 && cp -r src/discovery/prompts dist/src/discovery/prompts

# --- runtime: production dependencies only, non-root, a real PID 1 ----------------------------
FROM node:20-slim AS runtime
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
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# the pack loader looks for domain-packs/ above the compiled modules
COPY domain-packs ./domain-packs
RUN groupadd --system --gid 10001 assay \
 && useradd --system --uid 10001 --gid assay --home-dir /app --no-create-home assay \
 && mkdir -p /data && chown assay:assay /data
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["dumb-init", "--", "node", "dist/src/cli/main.js"]
CMD ["worker"]
