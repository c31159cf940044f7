# syntax=docker/dockerfile:1
# --- build: install everything, compile TypeScript, keep only production dependencies ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
# The console's own dependencies (web/), installed by the root's postinstall.
COPY web/package.json web/package-lock.json ./web/
# The devDependency `node` (the Node 24 pin for machines whose system Node is older) is
# pruned below with the other dev tools; the image runs its own Node 24.
RUN npm ci
COPY nest-cli.json tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
COPY web/index.html web/vite.config.ts web/tsconfig.json ./web/
COPY web/src ./web/src
# The service, then the console (web/dist, served at the page routes).
RUN npm run build && npm prune --omit=dev

# --- runtime: slim image, non-root user, compiled code only ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/web/dist ./web/dist
COPY --chown=node:node package.json ./
COPY --chown=node:node i18n ./i18n
RUN mkdir -p uploads .data && chown node:node uploads .data
USER node
EXPOSE 3000
# Production needs DATABASE_URL and AUTH_SECRET (the embedded database is for development).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
