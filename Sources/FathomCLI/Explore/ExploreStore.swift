import Foundation

/// The explorer's state between runs (Documentation/Explorer.md, "Persistence"): the last view,
/// the bookmarks and the journal, in `$XDG_STATE_HOME/fathom/explore.json` (`~/.local/state`
/// without it), changed one operation at a time (so pages in two tabs add to it, not over each
/// other) and written whole and atomically (a temporary file renamed over it) on every change,
/// so a killed server loses nothing it acknowledged.
final class ExploreStore: @unchecked Sendable {
    /// What the page keeps: views are the URL fragments the page writes (`#f=...&re=...`).
    struct State: Codable, Equatable {
        struct Bookmark: Codable, Equatable {
            var name: String
            var view: String
            /// When it was made, as the page's clock gave it (ISO 8601).
            var saved: String?
            /// The view as the page showed it, small: the name of its JPEG in the thumbnails
            /// folder beside the state file (`UUID.jpg`).
            var thumbnail: String?
        }
        /// One change of view: when (ms since 1970, the page's clock) and the view.
        struct Entry: Codable, Equatable {
            var t: Double
            var view: String
        }
        var last: String?
        var bookmarks: [Bookmark] = []
        /// Every change of view, oldest first, at most `maximumJournal` (pans coalesced by the page).
        var journal: [Entry]? = nil
    }

    /// At most this many bookmarks, each name at most `maximumName` characters.
    static let maximumBookmarks = 1000, maximumName = 200, maximumJournal = 1000
    /// A bookmark's thumbnail: a JPEG of at most this many bytes (160x90 takes 4 to 10 KB), sent
    /// as a `data:image/jpeg;base64,` URL and kept as a file of its own, so that the state file
    /// stays small (it is written whole on every change).
    static let maximumThumbnail = 32 << 10
    static let thumbnailPrefix = "data:image/jpeg;base64,"

    /// Whether `name` is a thumbnail's file name as the store makes them: a UUID and `.jpg`.
    static func isThumbnailName(_ name: String) -> Bool {
        name.hasSuffix(".jpg") && UUID(uuidString: String(name.dropLast(4))) != nil
    }

    /// The folder of the thumbnails, beside the state file.
    var thumbnailFolder: String { (path as NSString).deletingLastPathComponent + "/thumbnails" }

    let path: String
    private let lock = NSLock()
    private var state = State()

    /// The store at `path`; a missing file is an empty state, an unreadable or malformed one an
    /// error (the command's one line: nothing of the user's is replaced).
    init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.noInput("explore: cannot read its state file \(path)")
        }
        guard let decoded = try? JSONDecoder().decode(State.self, from: data), Self.problem(decoded) == nil else {
            throw CLIError.data("explore: its state file \(path) is malformed (move it away to start afresh)")
        }
        state = decoded
    }

    /// The state file's path: `$XDG_STATE_HOME/fathom/explore.json`, else `~/.local/state/...`.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        userFolder("XDG_STATE_HOME", else: ".local/state", environment: environment) + "/fathom/explore.json"
    }

    /// An XDG base folder: `variable`'s value where it is an absolute path, else `relative` in
    /// the home folder (the XDG Base Directory rules).
    static func userFolder(_ variable: String, else relative: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/" + relative
    }

    /// Why `state` cannot be kept, or nil.
    static func problem(_ state: State) -> String? {
        guard state.bookmarks.count <= maximumBookmarks else { return "at most \(maximumBookmarks) bookmarks" }
        let journal = state.journal ?? []
        guard journal.count <= maximumJournal, journal.allSatisfy({ $0.t.isFinite }) else {
            return "at most \(maximumJournal) journal entries, each with a time"
        }
        for view in [state.last].compactMap({ $0 }) + state.bookmarks.map(\.view) + journal.map(\.view) {
            guard view.hasPrefix("#"), !view.contains(where: { $0.isNewline }) else {
                return "a view is a URL fragment (#...)"
            }
        }
        guard state.bookmarks.allSatisfy({ $0.name.count <= maximumName && ($0.saved?.count ?? 0) <= 64 }) else {
            return "bookmark names at most \(maximumName) characters"
        }
        guard state.bookmarks.compactMap(\.thumbnail).allSatisfy(isThumbnailName) else {
            return "a bookmark's thumbnail is the name of its file (UUID.jpg)"
        }
        return nil
    }

    /// GET /api/state: the state as JSON.
    func reply() -> HTTPServer.Reply {
        lock.lock()
        let data = (try? JSONEncoder().encode(state)) ?? Data("{}".utf8)
        lock.unlock()
        return HTTPServer.Reply(status: 200, contentType: "application/json", body: data)
    }

    /// POST /api/state/last with `{"view": "#..."}`: the view to open next time.
    func setLast(_ body: Data) -> HTTPServer.Reply {
        struct Last: Decodable { var view: String }
        guard let last = try? JSONDecoder().decode(Last.self, from: body) else {
            return .text(400, "the last view must be {\"view\": \"#...\"}")
        }
        return change { $0.last = last.view }
    }

    /// POST /api/state/bookmark with `{"name", "view", "saved", "thumbnail"}`: one more bookmark. Each change
    /// is one operation on the server's state, so two tabs add to it, not over each other.
    func addBookmark(_ body: Data) -> HTTPServer.Reply {
        guard var bookmark = try? JSONDecoder().decode(State.Bookmark.self, from: body) else {
            return .text(400, "a bookmark is {\"name\": \"...\", \"view\": \"#...\"}")
        }
        // Its thumbnail, a JPEG data URL, into a file of its own (the state keeps its name).
        if let url = bookmark.thumbnail {
            guard url.hasPrefix(Self.thumbnailPrefix),
                let jpeg = Data(base64Encoded: String(url.dropFirst(Self.thumbnailPrefix.count))),
                jpeg.count <= Self.maximumThumbnail, jpeg.starts(with: [0xFF, 0xD8, 0xFF])
            else {
                return .text(
                    400,
                    "a thumbnail is a data:image/jpeg;base64 URL of a JPEG of at most \(Self.maximumThumbnail) bytes")
            }
            let name = UUID().uuidString + ".jpg"
            do {
                try FileManager.default.createDirectory(
                    atPath: thumbnailFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try jpeg.write(to: URL(fileURLWithPath: thumbnailFolder + "/" + name), options: .atomic)
            } catch {
                return .text(507, "cannot write the thumbnail: \(error.localizedDescription)")
            }
            bookmark.thumbnail = name
        }
        return change { $0.bookmarks.append(bookmark) }
    }

    /// GET /api/thumbnail?name=UUID.jpg: a bookmark's thumbnail (only a name the store made,
    /// from its own folder).
    func thumbnail(_ request: HTTPServer.Request) -> HTTPServer.Reply {
        guard let name = request.argument("name"), Self.isThumbnailName(name),
            let data = FileManager.default.contents(atPath: thumbnailFolder + "/" + name),
            data.count <= Self.maximumThumbnail
        else { return .text(404, "no such thumbnail") }
        return HTTPServer.Reply(status: 200, contentType: "image/jpeg", body: data)
    }

    /// POST /api/state/journal with `[{"t", "view"}, ...]`: entries appended to the journal,
    /// the oldest dropped past `maximumJournal`.
    func append(_ body: Data) -> HTTPServer.Reply {
        guard let entries = try? JSONDecoder().decode([State.Entry].self, from: body),
            entries.count <= Self.maximumJournal
        else {
            return .text(400, "journal entries are [{\"t\": ms, \"view\": \"#...\"}], at most \(Self.maximumJournal)")
        }
        return change { state in
            var journal = (state.journal ?? []) + entries
            if journal.count > Self.maximumJournal { journal.removeFirst(journal.count - Self.maximumJournal) }
            state.journal = journal
        }
    }

    /// Applies `edit` to the state, checks the result and writes it: 204, or 400 for a state
    /// past the limits, 507 when the file cannot be written (the old state stays, in memory and
    /// on disk).
    private func change(_ edit: (inout State) -> Void) -> HTTPServer.Reply {
        lock.lock()
        defer { lock.unlock() }
        var next = state
        edit(&next)
        if let problem = Self.problem(next) { return .text(400, problem) }
        do {
            try write(next)
        } catch {
            return .text(507, "cannot write \(path): \(error.localizedDescription)")
        }
        state = next
        return HTTPServer.Reply(status: 204, contentType: "text/plain", body: Data())
    }

    private func write(_ next: State) throws {
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // .atomic: a temporary file in the folder, renamed over the state file.
        try encoder.encode(next).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
