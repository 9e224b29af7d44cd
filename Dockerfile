# syntax=docker/dockerfile:1
# Build: npm ci with dev dependencies, compile TypeScript to dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script builds, and the sources are not copied yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY manifests/crds ./manifests/crds
RUN npm run build

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: compiled code, production node_modules and the CRD the hooks compile their schema from.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# A smaller young generation: peak RSS stays near 110 MB under load instead of 120+, at no measurable CPU
# cost (npm run bench); the same flag as npm start.
ENV NODE_OPTIONS=--max-semi-space-size=8
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/manifests/crds ./manifests/crds
COPY package.json ./
# A numeric non-root user, so Kubernetes' runAsNonRoot can verify it without /etc/passwd.
USER 65532:65532
EXPOSE 8080
# exec form: node is PID 1 and receives SIGTERM directly. No HEALTHCHECK: Kubernetes probes /healthz and /readyz.
CMD ["node", "dist/main.js"]
