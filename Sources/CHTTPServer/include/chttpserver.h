// An HTTP server for `fathom explore` through GNU libmicrohttpd (Debian's libmicrohttpd-dev),
// opened at run time as the CUDA driver and OpenEXR are: a build or a machine without it still
// builds and runs (`make portable`'s binary needs only glibc), and `fathom explore` then gives a
// one-line error (Documentation/Explorer.md). The library parses HTTP; this layer only passes a
// request to one handler and its one reply back.
#ifndef FATHOM_CHTTPSERVER_H
#define FATHOM_CHTTPSERVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fathom_http_server fathom_http_server;
/// One request, valid during the handler's call.
typedef struct fathom_http_request fathom_http_request;

/// Called on the request's connection thread (one thread a connection, at most
/// `connection_limit` at once), twice a request: first with the headers alone
/// (`fathom_http_is_admission`: no body read yet), when it may refuse the request by responding;
/// then, unless it responded, with the whole request, when it must call `fathom_http_respond` once.
typedef void (*fathom_http_handler)(void *context, fathom_http_request *request);

/// 1 when libmicrohttpd can be used; else 0 with the reason in `message`.
int fathom_http_available(char *message, size_t capacity);

/// Listens on `address` (an IPv4 or IPv6 literal) at `port` (0: any free port). Requests whose
/// body is over `body_limit` bytes get 413 without reaching the handler. NULL on failure (the
/// reason in `message`).
fathom_http_server *fathom_http_start(const char *address, uint16_t port, unsigned connection_limit,
                                      size_t body_limit, fathom_http_handler handler, void *context,
                                      char *message, size_t capacity);

/// The port the server listens on.
uint16_t fathom_http_port(const fathom_http_server *server);

/// Stops accepting, waits for the connections' threads, frees `server`.
void fathom_http_stop(fathom_http_server *server);

const char *fathom_http_method(const fathom_http_request *request);
/// 1 on the first call of a request: the headers alone, no body read yet.
int fathom_http_is_admission(const fathom_http_request *request);
/// The path without the query.
const char *fathom_http_path(const fathom_http_request *request);
/// A header's value (the name in any case), or NULL.
const char *fathom_http_header(const fathom_http_request *request, const char *name);
/// A query argument's decoded value, or NULL.
const char *fathom_http_argument(const fathom_http_request *request, const char *name);
/// The body (POST, PUT), `*length` bytes; NULL with 0 when there is none.
const void *fathom_http_body(const fathom_http_request *request, size_t *length);

/// The reply: status, content type, body (copied), and `headers` as name, value, ..., NULL (or
/// NULL). 0 on success.
int fathom_http_respond(fathom_http_request *request, unsigned status, const char *content_type,
                        const void *body, size_t length, const char *const *headers);

#ifdef __cplusplus
}
#endif

#endif
