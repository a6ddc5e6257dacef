import Fathom
import Foundation

/// `fathom explore`: serves the explorer (Documentation/Explorer.md) on this machine's loopback
/// address (or `--bind`), prints its URL with the token, and runs until SIGINT or SIGTERM.
enum ExploreCommand {
    /// The port tried first without --port, and how many after it when it is taken.
    static let defaultPort = 8765, portsTried = 20

    static func run(_ args: [String]) throws {
        guard let a = try Commands.explore.arguments(args) else { return }
        try a.refusePositionals()
        let address = a[.bind] ?? "127.0.0.1"
        guard ExploreServer.isAddressLiteral(address) else {
            throw CLIError.usage("--bind: '\(address)' is not an IPv4 or IPv6 address")
        }
        let (backend, gpuExact) = RenderCommand.backend(a)
        let threads = a.int(.threads)
        // Every check before the server starts: the library, then the address.
        if let reason = HTTPServer.unavailableReason {
            throw CLIError(exitCode: 69, message: "explore: \(reason)")
        }
        let store = try ExploreStore(path: ExploreStore.defaultPath())
        let server = ExploreServer(store: store, jobsFolder: ExploreJobs.defaultFolder()) { settings in
            var settings = settings
            settings.backend = backend
            settings.gpuExact = gpuExact
            if let threads { settings.threads = threads }
            return settings
        }
        let ports = a.int(.port).map { [$0] } ?? Array(defaultPort..<(defaultPort + portsTried))
        var http: HTTPServer?
        var lastError: Error?
        for port in ports where http == nil {
            do {
                http = try HTTPServer(
                    address: address, port: port, connectionLimit: ExploreServer.connectionLimit,
                    bodyLimit: ExploreServer.bodyLimit, admit: { request in server.admit(request) },
                    handler: { request in server.handle(request) })
            } catch { lastError = error }
        }
        guard let http else { throw lastError ?? CLIError.other("explore: cannot listen on \(address)") }
        server.setPort(http.port)
        let host = address.contains(":") ? "[\(address)]" : address
        print("fathom explore: http://\(host):\(http.port)/?token=\(server.token)")
        if address != "127.0.0.1" && address != "::1" {
            print("warning: listening on \(address), not only this machine's loopback: anyone with the URL can use it")
        }
        fflush(nil)
        let control = Cancellation.control()
        while !control.isCancelled { usleep(50_000) }
        // Every render and search unwinds, the running job too (jobs leave no files: waited
        // for, up to 30 s), then the connections close.
        server.cancelAll()
        server.jobs.waitForRunning(seconds: 30)
        http.stop()
        // Ended by a signal, as every command is: one line and 128 + its number (main.swift).
        throw RenderError.cancelled
    }
}
