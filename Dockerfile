# tokentap serve in a container (docs/deploy.md). scripts/docker-smoke.sh builds this image and smoke-tests it.
# The image holds what the npm tarball holds (built by `npm pack` here) plus the production dependencies.

FROM node:20-bookworm-slim AS build
# better-sqlite3 is native: npm fetches a prebuilt binary, or compiles it with these where none fits (or no network)
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# build, drop the dev dependencies, and lay the package out as `npm install` of the tarball would
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm pack --ignore-scripts --pack-destination /tmp \
 && mkdir -p /out/app \
 && tar -xzf /tmp/tokentap-*.tgz -C /out/app --strip-components=1 \
 && cp -a node_modules /out/app/node_modules \
 && chmod +x /out/app/dist/cli/main.js

FROM node:20-bookworm-slim
ENV NODE_ENV=production
COPY --from=build /out/app /app
RUN ln -s /app/dist/cli/main.js /usr/local/bin/tokentap \
 && mkdir /data && chown node:node /data
# Inside the container the gateway binds every interface (the published port decides who reaches it), so it
# takes the guards docs/security.md asks of a public bind: model calls need a session key, made over the rollout
# API with the admin token, which is passed at run time (-e TOKENTAP_ADMIN_TOKEN=...), never baked in.
ENV TOKENTAP_HOST=0.0.0.0 \
    TOKENTAP_PORT=4000 \
    TOKENTAP_DB=/data/tokentap.db \
    TOKENTAP_REQUIRE_SESSION_KEY=true
VOLUME /data
EXPOSE 4000
USER node
WORKDIR /data
# no curl in the slim image: Node's own fetch; /healthz is 503 when recording has stopped working
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TOKENTAP_PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# serve drains running streams on SIGTERM for up to TOKENTAP_SHUTDOWN_TIMEOUT_MS (30 s): stop with `-t 40`
ENTRYPOINT ["tokentap", "serve"]
