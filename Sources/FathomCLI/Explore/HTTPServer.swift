import CHTTPServer
import Foundation

/// An HTTP server on GNU libmicrohttpd (`CHTTPServer`, opened at run time): the library parses
/// every request and calls `handler` on that connection's thread with the parsed request; the
/// handler's reply goes back as it is. Nothing here reads HTTP itself.
final class HTTPServer: @unchecked Sendable {
    /// A parsed request, valid during the handler's call.
    struct Request {
        fileprivate let raw: OpaquePointer
        var method: String { String(cString: fathom_http_method(raw)) }
        /// The first call of a request: its headers alone, before any body is read.
        var isAdmission: Bool { fathom_http_is_admission(raw) == 1 }
        /// The path, without the query.
        var path: String { String(cString: fathom_http_path(raw)) }
        /// A header's value, the name in any case.
        func header(_ name: String) -> String? { fathom_http_header(raw, name).map { String(cString: $0) } }
        /// A query argument's decoded value.
        func argument(_ name: String) -> String? { fathom_http_argument(raw, name).map { String(cString: $0) } }
        /// The body (empty when there is none).
        var body: Data {
            var length = 0
            guard let bytes = fathom_http_body(raw, &length), length > 0 else { return Data() }
            return Data(bytes: bytes, count: length)
        }
    }

    /// A reply: status, content type, body and extra headers.
    struct Reply {
        var status: Int
        var contentType: String
        var body: Data
        var headers: [(String, String)] = []

        static func text(_ status: Int, _ text: String) -> Reply {
            Reply(status: status, contentType: "text/plain; charset=utf-8", body: Data((text + "\n").utf8))
        }
    }

    typealias Handler = @Sendable (Request) -> Reply
    /// Whether to refuse a request on its headers alone (nil: read it and call the handler).
    typealias Admission = @Sendable (Request) -> Reply?

    private let handler: Handler
    private let admit: Admission
    private var server: OpaquePointer?

    /// The port it listens on.
    private(set) var port = 0

    /// Why the server cannot run here (no libmicrohttpd), or nil.
    static var unavailableReason: String? {
        var message = [CChar](repeating: 0, count: 512)
        return fathom_http_available(&message, message.count) == 1 ? nil : text(message)
    }

    /// Listens on `address` at `port` (0: a free port). Throws the library's reason as one line.
    init(
        address: String, port: Int, connectionLimit: Int, bodyLimit: Int, admit: @escaping Admission,
        handler: @escaping Handler
    ) throws {
        self.handler = handler
        self.admit = admit
        var message = [CChar](repeating: 0, count: 512)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard
            let server = fathom_http_start(
                address, UInt16(port), UInt32(connectionLimit), bodyLimit,
                { context, request in
                    guard let context, let request else { return }
                    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
                    server.serve(Request(raw: request))
                }, context, &message, message.count)
        else { throw CLIError.other(text(message)) }
        self.server = server
        self.port = Int(fathom_http_port(server))
    }

    private func serve(_ request: Request) {
        let reply: Reply
        if request.isAdmission {
            guard let refusal = admit(request) else { return }
            reply = refusal
        } else {
            reply = handler(request)
        }
        var strings: [UnsafeMutablePointer<CChar>?] = []
        for (name, value) in reply.headers {
            strings.append(strdup(name))
            strings.append(strdup(value))
        }
        strings.append(nil)
        defer { strings.forEach { free($0) } }
        let pointers = strings.map { UnsafePointer($0) }
        reply.body.withUnsafeBytes { body in
            pointers.withUnsafeBufferPointer { headers in
                _ = fathom_http_respond(
                    request.raw, UInt32(reply.status), reply.contentType, body.baseAddress, body.count,
                    headers.baseAddress)
            }
        }
    }

    /// Stops accepting and waits for the connections' threads.
    func stop() {
        if let server { fathom_http_stop(server) }
        server = nil
    }

    deinit { stop() }
}

/// A C message buffer's text, up to its terminating zero.
private func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
