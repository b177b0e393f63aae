# The deskrun image: the runner and its API (`deskrun serve`), which starts
# sandbox containers beside itself through the Docker socket it is given
# (see docker-compose.yml).
#
# Build context: the repository with a static deskrun binary at
# bin/deskrun (`make build`, or CGO_ENABLED=0 go build -o bin/ ./cmd/deskrun);
# images/build.sh deskrun does both. The binary is built on the host rather
# than in a golang build stage so that the image builds where no registry
# can be pulled from; the base comes from images/base.sh there.
FROM debian:bookworm-slim

# CA certificates for agents that call model APIs over HTTPS; the programs
# grading runs on the host (runs of POST /v1/runs): poppler's pdftotext,
# pdfinfo and pdfimages, MuPDF's mutool (compare_pdfs reads text as
# PyMuPDF does) and libjpeg-turbo's djpeg (JPEG decoded as Pillow does).
RUN apt-get update \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates iptables \
		poppler-utils mupdf-tools libjpeg-turbo-progs \
	&& rm -rf /var/lib/apt/lists/*

COPY bin/deskrun /usr/local/bin/deskrun

# Root inside, without capabilities (compose drops them): whoever holds the
# Docker socket controls the host anyway, and a root uid needs no group
# juggling to open a socket owned by root:docker on every host.
ENTRYPOINT ["/usr/local/bin/deskrun"]
CMD ["serve", "--addr", "127.0.0.1:8080", "--provider", "docker"]
