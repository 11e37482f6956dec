FROM python:3.11-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm && rm -rf /var/lib/apt/lists/*
COPY . /app
RUN scripts/bootstrap
ENV HUB_HOST=0.0.0.0
EXPOSE 8765
# Off loopback the hub requires a bearer token: docker run -e HUB_TOKEN=... -p 8765:8765 prove-hub
CMD ["scripts/serve"]
