# agentd as a container image: one replica of a scaled-out deployment (see README "Scaling out"
# and deploy/). Configure it with AGENTD_DATABASE_URL, AGENTD_REDIS_URL, OH_SECRET_KEY and a session
# key (OH_SESSION_API_KEYS_0); without a database URL it runs the embedded default (SQLite in
# /var/lib/agentd, which is then the volume to keep).
# Not built or run in this project's CI (no container engine there): a starting point, on paper.

# ---- build: the bundle (dist/cli.js) with the dev dependencies (esbuild, TypeScript) -------------
FROM node:22-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN node scripts/build.mjs

# ---- deps: production dependencies only, native modules compiled for this image --------------------
FROM node:22-bookworm-slim AS deps
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` (the bundle, built above) needs dev dependencies;
# the native modules are then built on their own.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts \
  && npm rebuild better-sqlite3 @lydell/node-pty

# ---- runtime ---------------------------------------------------------------------------------------
FROM node:22-bookworm-slim
# The programs the agent's tools and the sandboxes run: git, ripgrep (glob, grep), bubblewrap
# (isolated sandboxes; needs user namespaces in the cluster, else set AGENTD_SANDBOX_PROVIDER=process).
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ripgrep bubblewrap tar ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
RUN mkdir -p /var/lib/agentd && chown node:node /var/lib/agentd
USER node
ENV NODE_ENV=production \
    AGENTD_HOST=0.0.0.0 \
    AGENTD_PORT=8000 \
    AGENTD_DATA_DIR=/var/lib/agentd
EXPOSE 8000
CMD ["node", "dist/cli.js", "serve"]
