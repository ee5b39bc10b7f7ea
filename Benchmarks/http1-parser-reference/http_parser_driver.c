/* http-parser (Debian's libhttp-parser 2.9) on a corpus of requests: the reference that
 * scripts/bench-http1-parser.sh counts instructions of beside HTTP1RequestParser. Not part
 * of the package: the script builds it with `gcc ... -lhttp_parser` when the library is there.
 *
 *   http_parser_driver verdicts CORPUS       one line per request: "valid N" or "invalid ERRNO"
 *   http_parser_driver bench CORPUS ROUNDS   parses every valid request ROUNDS times
 *
 * CORPUS: requests as a 4-byte little-endian length then the bytes. Each field and the body
 * are delivered as pointers and lengths, as the Swift parser delivers ranges; a request
 * whose version is not 1.0 or 1.1 is refused at headers_complete, as the server did. */
#include <http_parser.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counts { size_t fields, body, messages; };

static int on_span(http_parser *p, const char *at, size_t length) {
    struct counts *c = p->data; (void)at; c->fields += length; return 0;
}
static int on_body(http_parser *p, const char *at, size_t length) {
    struct counts *c = p->data; (void)at; c->body += length; return 0;
}
static int on_headers_complete(http_parser *p) {
    return p->http_major == 1 && p->http_minor <= 1 ? 0 : -1;
}
static int on_message_complete(http_parser *p) {
    struct counts *c = p->data; c->messages++; return 0;
}

static http_parser_settings settings;

/* Returns the errno (HPE_OK when every byte parsed or an upgrade stopped it). */
static enum http_errno parse(const uint8_t *bytes, size_t length, struct counts *c) {
    http_parser parser;
    http_parser_init(&parser, HTTP_REQUEST);
    parser.data = c;
    size_t parsed = http_parser_execute(&parser, &settings, (const char *)bytes, length);
    enum http_errno error = HTTP_PARSER_ERRNO(&parser);
    if (error == HPE_OK && parsed != length && !parser.upgrade) error = HPE_UNKNOWN;
    return error;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s verdicts|bench CORPUS [ROUNDS]\n", argv[0]); return 2; }
    settings.on_url = on_span;
    settings.on_header_field = on_span;
    settings.on_header_value = on_span;
    settings.on_body = on_body;
    settings.on_headers_complete = on_headers_complete;
    settings.on_message_complete = on_message_complete;
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror(argv[2]); return 2; }
    static uint8_t corpus[1 << 20];
    size_t size = fread(corpus, 1, sizeof corpus, file);
    fclose(file);
    long rounds = argc > 3 ? atol(argv[3]) : 1;
    int bench = strcmp(argv[1], "bench") == 0;
    size_t total = 0, requests = 0;
    for (long round = 0; round < (bench ? rounds : 1); round++) {
        for (size_t offset = 0; offset + 4 <= size;) {
            uint32_t length;
            memcpy(&length, corpus + offset, 4);
            const uint8_t *bytes = corpus + offset + 4;
            offset += 4 + length;
            struct counts c = {0, 0, 0};
            enum http_errno error = parse(bytes, length, &c);
            if (bench) {
                if (error == HPE_OK) { requests += c.messages; total += c.fields + c.body; }
            } else if (error == HPE_OK) {
                printf("valid %zu\n", c.messages);
            } else {
                printf("invalid %s\n", http_errno_name(error));
            }
        }
    }
    if (bench) printf("requests=%zu bytes=%zu\n", requests, total);
    return 0;
}
