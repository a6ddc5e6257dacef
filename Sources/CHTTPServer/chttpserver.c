// libmicrohttpd through dlopen/dlsym at run time (chttpserver.h). The library's own header gives
// the types and constants when it is installed at build time; without it every call reports
// that this build has no HTTP server.
#include "chttpserver.h"

#include <stdio.h>
#include <string.h>

#if __has_include(<microhttpd.h>)
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <microhttpd.h>
#define FATHOM_HAVE_MHD 1
#endif

static void say(char *message, size_t capacity, const char *what) {
    if (message && capacity) snprintf(message, capacity, "%s", what);
}

#ifndef FATHOM_HAVE_MHD

int fathom_http_available(char *message, size_t capacity) {
    say(message, capacity,
        "this build of Fathom has no HTTP server (libmicrohttpd-dev was not installed when it was built)");
    return 0;
}
fathom_http_server *fathom_http_start(const char *address, uint16_t port, unsigned connection_limit,
                                      size_t body_limit, fathom_http_handler handler, void *context,
                                      char *message, size_t capacity) {
    (void)address; (void)port; (void)connection_limit; (void)body_limit; (void)handler; (void)context;
    fathom_http_available(message, capacity);
    return NULL;
}
uint16_t fathom_http_port(const fathom_http_server *server) { (void)server; return 0; }
void fathom_http_stop(fathom_http_server *server) { (void)server; }
const char *fathom_http_method(const fathom_http_request *request) { (void)request; return ""; }
int fathom_http_is_admission(const fathom_http_request *request) { (void)request; return 0; }
const char *fathom_http_path(const fathom_http_request *request) { (void)request; return ""; }
const char *fathom_http_header(const fathom_http_request *request, const char *name) {
    (void)request; (void)name; return NULL;
}
const char *fathom_http_argument(const fathom_http_request *request, const char *name) {
    (void)request; (void)name; return NULL;
}
const void *fathom_http_body(const fathom_http_request *request, size_t *length) {
    (void)request; *length = 0; return NULL;
}
int fathom_http_respond(fathom_http_request *request, unsigned status, const char *content_type,
                        const void *body, size_t length, const char *const *headers) {
    (void)request; (void)status; (void)content_type; (void)body; (void)length; (void)headers;
    return -1;
}

#else

// The functions used, as pointers of the header's own types.
#define FATHOM_MHD_FUNCTIONS(X)                 \
    X(MHD_start_daemon)                         \
    X(MHD_stop_daemon)                          \
    X(MHD_get_daemon_info)                      \
    X(MHD_lookup_connection_value)              \
    X(MHD_create_response_from_buffer)          \
    X(MHD_add_response_header)                  \
    X(MHD_queue_response)                       \
    X(MHD_destroy_response)

static struct {
#define FATHOM_MHD_POINTER(name) __typeof__(&name) name;
    FATHOM_MHD_FUNCTIONS(FATHOM_MHD_POINTER)
#undef FATHOM_MHD_POINTER
} mhd;
static char load_error[512];
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {
        "libmicrohttpd.so.12", "libmicrohttpd.so", "libmicrohttpd.12.dylib", "libmicrohttpd.dylib",
        "/opt/homebrew/lib/libmicrohttpd.dylib", "/usr/local/lib/libmicrohttpd.dylib",
    };
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error,
                 "libmicrohttpd is not installed (Debian: apt install libmicrohttpd12; macOS: brew install libmicrohttpd)");
        return;
    }
#define FATHOM_MHD_LOAD(name)                                                                      \
    if (!(mhd.name = (__typeof__(&name))dlsym(library, #name))) {                                  \
        snprintf(load_error, sizeof load_error, "libmicrohttpd has no %s: too old (0.9.71 or later is needed)", #name); \
        return;                                                                                    \
    }
    FATHOM_MHD_FUNCTIONS(FATHOM_MHD_LOAD)
#undef FATHOM_MHD_LOAD
    loaded = 1;
}

int fathom_http_available(char *message, size_t capacity) {
    pthread_once(&load_once, load);
    if (!loaded) say(message, capacity, load_error);
    return loaded;
}

struct fathom_http_server {
    struct MHD_Daemon *daemon;
    fathom_http_handler handler;
    void *context;
    size_t body_limit;
    uint16_t port;
};

struct fathom_http_request {
    struct MHD_Connection *connection;
    const char *method;
    const char *path;
    const char *body;
    size_t length;
    /// 1 on the call with the headers alone (`fathom_http_is_admission`), before any body is read.
    int admission;
    int responded;
    enum MHD_Result result;
};

/// A request's state between the library's calls: its body so far.
struct upload {
    char *body;
    size_t length;
    int too_large;
};

static enum MHD_Result reply(struct MHD_Connection *connection, unsigned status, const char *content_type,
                             const void *body, size_t length, const char *const *headers) {
    struct MHD_Response *response =
        mhd.MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!response) return MHD_NO;
    if (content_type) mhd.MHD_add_response_header(response, "Content-Type", content_type);
    // Every reply, this layer's own included: never cached, never sniffed.
    mhd.MHD_add_response_header(response, "Cache-Control", "no-store");
    mhd.MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    for (const char *const *h = headers; h && h[0] && h[1]; h += 2) mhd.MHD_add_response_header(response, h[0], h[1]);
    enum MHD_Result result = mhd.MHD_queue_response(connection, status, response);
    mhd.MHD_destroy_response(response);
    return result;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    fathom_http_server *server = cls;
    struct upload *upload = *con_cls;
    if (!upload) {
        // The headers alone: the handler may refuse the request here (its token, Host, Origin),
        // and a declared body over the limit is refused, before any body is read (the library
        // then closes the connection rather than read it).
        upload = calloc(1, sizeof *upload);
        if (!upload) return MHD_NO;
        *con_cls = upload;
        fathom_http_request admission = {connection, method, url, NULL, 0, 1, 0, MHD_NO};
        server->handler(server->context, &admission);
        if (admission.responded) return admission.result;
        const char *declared = mhd.MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length");
        if (declared && strtoull(declared, NULL, 10) > server->body_limit) {
            static const char text[] = "request body too large\n";
            return reply(connection, 413, "text/plain; charset=utf-8", text, sizeof text - 1, NULL);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t more = *upload_data_size;
        *upload_data_size = 0;
        if (upload->too_large) return MHD_YES;
        if (more > server->body_limit - upload->length) {
            upload->too_large = 1;
            free(upload->body);
            upload->body = NULL;
            upload->length = 0;
            return MHD_YES;
        }
        char *grown = realloc(upload->body, upload->length + more + 1);
        if (!grown) return MHD_NO;
        memcpy(grown + upload->length, upload_data, more);
        upload->body = grown;
        upload->length += more;
        upload->body[upload->length] = 0;
        return MHD_YES;
    }
    if (upload->too_large) {
        static const char text[] = "request body too large\n";
        return reply(connection, 413, "text/plain; charset=utf-8", text, sizeof text - 1, NULL);
    }
    fathom_http_request request = {connection, method, url, upload->body, upload->length, 0, 0, MHD_NO};
    server->handler(server->context, &request);
    if (!request.responded) {
        static const char text[] = "no reply\n";
        return reply(connection, 500, "text/plain; charset=utf-8", text, sizeof text - 1, NULL);
    }
    return request.result;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    struct upload *upload = *con_cls;
    if (upload) {
        free(upload->body);
        free(upload);
        *con_cls = NULL;
    }
}

fathom_http_server *fathom_http_start(const char *address, uint16_t port, unsigned connection_limit,
                                      size_t body_limit, fathom_http_handler handler, void *context,
                                      char *message, size_t capacity) {
    if (!fathom_http_available(message, capacity)) return NULL;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *socket_address;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        socket_address = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        socket_address = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        if (message && capacity) snprintf(message, capacity, "--bind %s: not an IPv4 or IPv6 address", address);
        return NULL;
    }
    fathom_http_server *server = calloc(1, sizeof *server);
    if (!server) {
        say(message, capacity, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    server->body_limit = body_limit;
    server->daemon = mhd.MHD_start_daemon(
        flags, port, NULL, NULL, on_request, server, MHD_OPTION_SOCK_ADDR, socket_address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!server->daemon) {
        if (message && capacity) snprintf(message, capacity, "cannot listen on %s port %u (in use, or not allowed)", address, (unsigned)port);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = info ? info->port : port;
    return server;
}

uint16_t fathom_http_port(const fathom_http_server *server) { return server->port; }

void fathom_http_stop(fathom_http_server *server) {
    if (!server) return;
    mhd.MHD_stop_daemon(server->daemon);
    free(server);
}

const char *fathom_http_method(const fathom_http_request *request) { return request->method; }
int fathom_http_is_admission(const fathom_http_request *request) { return request->admission; }
const char *fathom_http_path(const fathom_http_request *request) { return request->path; }
const char *fathom_http_header(const fathom_http_request *request, const char *name) {
    return mhd.MHD_lookup_connection_value(request->connection, MHD_HEADER_KIND, name);
}
const char *fathom_http_argument(const fathom_http_request *request, const char *name) {
    return mhd.MHD_lookup_connection_value(request->connection, MHD_GET_ARGUMENT_KIND, name);
}
const void *fathom_http_body(const fathom_http_request *request, size_t *length) {
    *length = request->length;
    return request->body;
}
int fathom_http_respond(fathom_http_request *request, unsigned status, const char *content_type,
                        const void *body, size_t length, const char *const *headers) {
    if (request->responded) return -1;
    request->responded = 1;
    request->result = reply(request->connection, status, content_type, body, length, headers);
    return request->result == MHD_YES ? 0 : -1;
}

#endif
