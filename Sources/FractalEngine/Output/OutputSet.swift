import Foundation
import Synchronization

// Outputs are written so that nothing a user owns is destroyed (Documentation/Reliability.md):
//
// - a regular file, or nothing, at the path is replaced atomically: the bytes go to a
//   temporary file in the same folder, renamed over the path only when complete; a file
//   that existed keeps its mode (and, where allowed, its owner);
// - a symbolic link is followed: its final target is what is written or created;
// - a character device or a FIFO (/dev/null, a pipe) is written in place, never replaced; a
//   block device, a socket or a folder is refused;
// - a name of an open descriptor of this process (/dev/stdout, /dev/fd/N, /proc/self/fd/N)
//   is that descriptor: written in place (appending where it was opened to append), whatever
//   file it leads to, never renamed over; another process's descriptor is refused;
// - an output that is one of the command's inputs (the same file by device and inode) is
//   refused before any work starts;
// - a file without any write permission is refused, as writing through it would be;
// - `-` is standard output (refused when it is a terminal);
// - the outputs of one command form one `OutputSet`: all are written, or none is; two
//   outputs on one path are refused before any work starts.

/// Why an output could not be written.
public enum OutputError: Error, Equatable, CustomStringConvertible {
    /// The path of a `file:` URL; `cannotCreate` for any other.
    package static func path(of url: URL) throws(OutputError) -> String {
        guard let path = url.fileSystemPath else {
            throw .cannotCreate(path: url.absoluteString, reason: "not a file URL")
        }
        return path
    }

    /// The output given as `path` cannot be written; `reason` says why (a read-only file, a
    /// missing folder, a folder or device at the path, or the system's error message).
    case cannotCreate(path: String, reason: String)
    /// Two outputs of one command resolve to the same file.
    case samePath(String, String)
    /// The output `output` is the file the command reads as `input`: writing it would destroy it.
    case overwritesInput(output: String, input: String)
    /// Writing an output that the command was handed open (standard output, a descriptor it
    /// inherited) failed: a reader went away, the file it leads to filled its device.
    case writeFailed(path: String, reason: String)

    /// A one-line message for the user that names the path or paths.
    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot write '\(path)': \(reason)"
        case .samePath(let a, let b):
            a == b
                ? "'\(a)' is given for two outputs"
                : "'\(a)' and '\(b)' are the same file: give each output its own path"
        case .writeFailed(let path, let reason):
            path == "-" ? "cannot write standard output: \(reason)" : "cannot write '\(path)': \(reason)"
        case .overwritesInput(let output, let input):
            output == input
                ? "'\(output)' is an input of this command: give the output another path"
                : "'\(output)' is the same file as the input '\(input)': give the output another path"
        }
    }
}

/// Where an output goes, decided before any work starts.
public enum OutputTarget: Equatable, Sendable {
    /// A new file, or a regular file replaced atomically (keeping `mode` when it existed).
    case file(path: String, mode: mode_t?)
    /// A character device or FIFO: written in place.
    case stream(path: String)
    /// Standard output.
    case standardOutput
    /// An open descriptor of this process, named by /dev/stdout, /dev/fd/N or /proc/self/fd/N:
    /// written in place.
    case descriptor(Int32)

    /// Classifies `path` by the rules above; throws for what must not be written.
    public static func resolve(_ path: String) throws(OutputError) -> OutputTarget {
        if path == "-" {
            guard isatty(1) == 0 else { throw .cannotCreate(path: path, reason: "standard output is a terminal") }
            return .standardOutput
        }
        guard !path.isEmpty else { throw .cannotCreate(path: path, reason: "an empty path") }
        let final: String
        switch try followLinks(path) {
        case .path(let p): final = p
        case .descriptor(let fd): return try checkDescriptor(fd, for: path)
        }
        var info = stat()
        if lstat(final, &info) != 0 {
            guard errno == ENOENT else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
            try checkFolder(of: final, for: path)
            return .file(path: final, mode: nil)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            try checkFolder(of: final, for: path)
            guard info.st_mode & 0o222 != 0, geteuid() == 0 || access(final, W_OK) == 0 else {
                throw .cannotCreate(path: path, reason: "the file is read-only")
            }
            return .file(path: final, mode: info.st_mode & 0o7777)
        case S_IFCHR, S_IFIFO:
            return .stream(path: final)
        case S_IFDIR: throw .cannotCreate(path: path, reason: "it is a folder")
        case S_IFBLK: throw .cannotCreate(path: path, reason: "it is a block device (never replaced or written)")
        case S_IFSOCK: throw .cannotCreate(path: path, reason: "it is a socket")
        default: throw .cannotCreate(path: path, reason: "it is not a regular file")
        }
    }

    /// Where a chain of symbolic links ends: a path, or an open descriptor of this process.
    enum LinkEnd {
        case path(String)
        case descriptor(Int32)
    }

    /// The path after following symbolic links (a dangling link gives its target's path), or
    /// the descriptor a link in the chain names (/dev/stdout -> /proc/self/fd/1): such a link
    /// leads to whatever file the descriptor has open, which is written through the descriptor,
    /// never by its name.
    static func followLinks(_ path: String) throws(OutputError) -> LinkEnd {
        var current = path
        for _ in 0..<40 {
            if let fd = try descriptorNamed(by: current, for: path) { return .descriptor(fd) }
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return .path(current) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
            let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target : URL(fileURLWithPath: current).deletingLastPathComponent().path + "/" + target
        }
        throw .cannotCreate(path: path, reason: "too many levels of symbolic links")
    }

    /// The descriptor `candidate` names when its folder is a descriptor folder of /proc
    /// (/proc/self/fd, /proc/PID/fd, /proc/thread-self/fd, /dev/fd through its link) or is
    /// /dev/fd itself (macOS): this process's descriptor N; another process's is refused.
    static func descriptorNamed(by candidate: String, for path: String) throws(OutputError) -> Int32? {
        let url = URL(fileURLWithPath: candidate)
        let name = url.lastPathComponent
        guard let folder = realPath(url.deletingLastPathComponent().path) else { return nil }
        let parts = folder.split(separator: "/")
        // /dev/fd is a folder of its own where it is not a link to /proc/self/fd (macOS).
        if parts != ["dev", "fd"] {
            guard parts.count >= 3, parts.first == "proc", parts.last == "fd" else { return nil }
            guard let pid = Int32(parts[1]) else { return nil }
            guard pid == getpid() else {
                throw .cannotCreate(path: path, reason: "it names a descriptor of another process")
            }
        }
        guard let fd = Int32(name), fd >= 0 else {
            throw .cannotCreate(path: path, reason: "'\(name)' is not a descriptor number")
        }
        return fd
    }

    /// The canonical path of an existing folder (nil when it does not resolve).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Descriptor `fd` as an output: open, open for writing, not a terminal or a folder.
    static func checkDescriptor(_ fd: Int32, for path: String) throws(OutputError) -> OutputTarget {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { throw .cannotCreate(path: path, reason: "descriptor \(fd) is not open") }
        // A descriptor the process opened itself (its runtime's, close-on-exec) is not one the
        // command was handed by its caller.
        guard fcntl(fd, F_GETFD) & FD_CLOEXEC == 0 else {
            throw .cannotCreate(path: path, reason: "descriptor \(fd) is not one this command was given")
        }
        guard flags & O_ACCMODE != O_RDONLY else {
            throw .cannotCreate(path: path, reason: "descriptor \(fd) is open for reading only")
        }
        guard isatty(fd) == 0 else { throw .cannotCreate(path: path, reason: "descriptor \(fd) is a terminal") }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw .cannotCreate(path: path, reason: "descriptor \(fd) is a folder")
        case S_IFSOCK: throw .cannotCreate(path: path, reason: "descriptor \(fd) is a socket")
        default: return .descriptor(fd)
        }
    }

    /// Throws unless the folder holding `final` exists and is writable (`path`: the path as
    /// given, for the error).
    static func checkFolder(of final: String, for path: String) throws(OutputError) {
        let folder = URL(fileURLWithPath: final).deletingLastPathComponent().path
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "folder '\(folder)' does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw .cannotCreate(path: path, reason: "folder '\(folder)' is not writable")
        }
    }

    /// The file this target names, for telling two outputs (or an output and an input)
    /// apart: device and inode when it exists, else the absolute path.
    var identity: String {
        var info = stat()
        switch self {
        case .standardOutput:
            return fstat(1, &info) == 0 ? "inode \(info.st_dev):\(info.st_ino)" : "-"
        case .descriptor(let fd):
            return fstat(fd, &info) == 0 ? "inode \(info.st_dev):\(info.st_ino)" : "descriptor \(fd)"
        case .file(let path, _), .stream(let path):
            if stat(path, &info) == 0 { return "inode \(info.st_dev):\(info.st_ino)" }
            let url = URL(fileURLWithPath: path)
            return url.deletingLastPathComponent().resolvingSymlinksInPath().path + "/" + url.lastPathComponent
        }
    }

    /// Whether this output is the process's standard output (by `-`, a descriptor or a path
    /// that names the same file): a command's report then goes to standard error.
    var isStandardOutput: Bool {
        if case .standardOutput = self { return true }
        var info = stat()
        guard fstat(1, &info) == 0 else { return false }
        return identity == "inode \(info.st_dev):\(info.st_ino)"
    }
}

/// The files the running command reads (set once by a command-line tool, before any output is
/// resolved): every `OutputSet` of the process refuses an output that is one of them, so no
/// command can destroy its own input, whichever of its outputs would have.
package enum CommandInputs {
    private static let paths = Mutex<[String]>([])

    /// Adds `inputs` (paths as the user gave them; `-` and paths that do not exist are skipped).
    package static func declare(_ inputs: [String]) {
        paths.withLock { $0 += inputs.filter { $0 != "-" && !$0.isEmpty } }
    }

    /// The declared input that is the file with `identity`, if any.
    static func input(matching identity: String, among extra: [String]) -> String? {
        let all = paths.withLock { $0 } + extra
        return all.first { input in
            var info = stat()
            return stat(input, &info) == 0 && identity == "inode \(info.st_dev):\(info.st_ino)"
        }
    }
}

/// Whether a resolved output of this process is its standard output: set by `OutputSet`, read
/// by a command-line tool that must then keep its report off standard output.
package enum StandardOutputUse {
    private static let claimed = Atomic<Bool>(false)

    /// Whether an output of this process goes to standard output.
    package static var isClaimed: Bool { claimed.load(ordering: .acquiring) }

    static func claim() { claimed.store(true, ordering: .releasing) }
}

/// The temporary files of this process that are not yet committed, and the helper processes
/// writing into them: a cancellation that cannot wait for the work to unwind (a second signal,
/// a signal the work does not answer within a second, a signal that ends the process) stops
/// the helpers and removes the files before it exits.
package enum TemporaryFiles {
    private static let paths = Mutex<Set<String>>([])
    private static let children = Mutex<Set<pid_t>>([])
    /// Held while an `OutputSet` moves its files into place, and by `exitNow` for good: a
    /// process never exits between two renames of one commit.
    static let commitGate = Mutex<Int>(0)

    static func add(_ path: String) {
        _ = paths.withLock { $0.insert(path) }
    }

    static func remove(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
        unlink(path)
    }

    /// Registers a helper process that writes a temporary file (ffmpeg): stopped before the
    /// files are removed, so that it cannot write one again.
    package static func addChild(_ pid: pid_t) {
        _ = children.withLock { $0.insert(pid) }
    }

    /// The helper `pid` has ended.
    package static func removeChild(_ pid: pid_t) {
        _ = children.withLock { $0.remove(pid) }
    }

    /// Stops every registered helper, then removes every temporary file still registered.
    package static func removeAll() {
        let helpers = children.withLock { c in
            defer { c = [] }
            return c
        }
        for pid in helpers {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        let all = paths.withLock { p in
            defer { p = [] }
            return p
        }
        for path in all { unlink(path) }
    }

    /// Waits for a commit in progress to finish its renames, removes the temporary files (and
    /// stops the helpers) and ends the process at once with `code`, after `line` on standard
    /// error. Never returns; no other thread's commit starts once this began.
    package static func exitNow(_ code: Int32, line: String) -> Never {
        commitGate.withLock { _ in
            removeAll()
            let text = Array(line.utf8)
            _ = text.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
            _exit(code)
        }
    }

    /// Waits for a commit in progress, removes the temporary files and stops the helpers, then
    /// ends the process by `signo` with its default action (a core dump where that is
    /// SIGQUIT's), as if the signal had not been caught.
    package static func exitBySignal(_ signo: Int32) -> Never {
        commitGate.withLock { _ in
            removeAll()
            signal(signo, SIG_DFL)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, signo)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(signo)
            // A signal whose default is to be ignored (none of those caught) would land here.
            _exit(128 + signo)
        }
    }
}

/// The outputs of one command, written as one transaction: each is staged in a temporary
/// file, and only when all are staged are they moved into place (streams written first,
/// then renames, undone if one fails). A set that is not committed removes its temporary
/// files when it goes away.
public final class OutputSet: Sendable {
    /// The outputs' paths as given, in order; an output's index is its position here.
    public let paths: [String]
    /// Where each output goes (`OutputTarget.resolve` of each path, links followed).
    public let targets: [OutputTarget]
    /// Each output's staged temporary file, if any.
    private let temporaries: Mutex<[String?]>

    /// Resolves every path (Documentation/Reliability.md's rules) and refuses two outputs on
    /// one file, and an output that is one of `inputs` (or of the inputs the running command
    /// declared), before any work starts.
    public init(_ paths: [String], inputs: [String] = []) throws(OutputError) {
        self.paths = paths
        var targets: [OutputTarget] = []
        var seen: [String: String] = [:]
        for path in paths {
            let target = try OutputTarget.resolve(path)
            if let other = seen[target.identity] { throw .samePath(other, path) }
            if let input = CommandInputs.input(matching: target.identity, among: inputs) {
                throw .overwritesInput(output: path, input: input)
            }
            seen[target.identity] = path
            targets.append(target)
        }
        if targets.contains(where: \.isStandardOutput) { StandardOutputUse.claim() }
        self.targets = targets
        temporaries = Mutex(Array(repeating: nil, count: paths.count))
    }

    deinit { abort() }

    /// The path of output `index` as given; throws for an index the set does not have.
    public func path(_ index: Int) throws(OutputError) -> String {
        guard paths.indices.contains(index) else {
            throw .cannotCreate(path: "output \(index)", reason: "the set has \(paths.count) outputs")
        }
        return paths[index]
    }

    /// A new temporary file for output `index` (replacing one staged before): in the
    /// target's folder for a file, in the temporary folder for a stream.
    public func temporaryPath(_ index: Int) throws(OutputError) -> String {
        _ = try path(index)
        if let old = temporaries.withLock({ $0[index] }) { TemporaryFiles.remove(old) }
        let folder: String
        let name: String
        switch targets[index] {
        case .file(let path, _):
            let url = URL(fileURLWithPath: path)
            folder = url.deletingLastPathComponent().path
            name = url.lastPathComponent
        case .stream, .standardOutput, .descriptor:
            folder = ProcessInfo.processInfo.environment["TMPDIR"].map { $0.isEmpty ? "/tmp" : $0 } ?? "/tmp"
            name = "fathom-output"
        }
        let temporary = folder + "/." + name + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        // 0666 less the umask: the mode a new file gets (a replaced one takes its own at commit).
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o666)
        guard fd >= 0 else {
            throw .cannotCreate(
                path: paths[index],
                reason: "cannot create a temporary file in '\(folder)': \(String(cString: strerror(errno)))")
        }
        close(fd)
        TemporaryFiles.add(temporary)
        temporaries.withLock { $0[index] = temporary }
        return temporary
    }

    /// Stages `data` as output `index`.
    public func stage(_ data: Data, at index: Int) throws(OutputError) {
        let temporary = try temporaryPath(index)
        do { try writeAll(data, to: temporary, flags: O_WRONLY | O_TRUNC) } catch {
            TemporaryFiles.remove(temporary)
            temporaries.withLock { $0[index] = nil }
            throw .cannotCreate(path: paths[index], reason: error.reason)
        }
    }

    /// Moves every staged output into place: all of them, or (on an error) none.
    public func commit() throws(OutputError) {
        let current = temporaries.withLock { $0 }
        let staged = current.compactMap { $0 }
        guard staged.count == paths.count else {
            throw .cannotCreate(
                path: paths[current.firstIndex { $0 == nil } ?? 0], reason: "nothing was staged for it")
        }
        // Streams first: they cannot be undone, and nothing is in place yet when one fails.
        for (i, target) in targets.enumerated() {
            switch target {
            case .file: continue
            case .stream(let path):
                do { try copy(staged[i], to: path) } catch { throw .cannotCreate(path: paths[i], reason: error.reason) }
            case .standardOutput:
                do { try copy(staged[i], toDescriptor: 1) } catch {
                    throw .writeFailed(path: "-", reason: error.reason)
                }
            case .descriptor(let fd):
                do { try copy(staged[i], toDescriptor: fd) } catch {
                    throw .writeFailed(path: paths[i], reason: error.reason)
                }
            }
        }
        // Then renames, each old file kept under a hard link until all are in place; the gate
        // keeps a forced exit from falling between two of them.
        try TemporaryFiles.commitGate.withLock { (_) throws(OutputError) in try moveIntoPlace(staged) }
        // The streams' temporaries were copied, not moved: until 2026-12-03 they stayed in
        // the temporary folder after every `--output -`.
        for (i, target) in targets.enumerated() {
            if case .file = target { continue }
            TemporaryFiles.remove(staged[i])
        }
        temporaries.withLock { $0 = Array(repeating: nil, count: paths.count) }
    }

    /// Renames each staged file over its target, keeping each replaced file under a hard link
    /// until all are in place, and putting them back if one rename fails.
    private func moveIntoPlace(_ staged: [String]) throws(OutputError) {
        var done: [(path: String, backup: String?)] = []
        func undo() {
            for (path, backup) in done.reversed() {
                if let backup { rename(backup, path) } else { unlink(path) }
            }
        }
        for (i, target) in targets.enumerated() {
            guard case .file(let path, let mode) = target else { continue }
            var backup: String?
            if let mode {
                // The replaced file's mode and owner; its old bytes under a hard link until all are in place.
                chmod(staged[i], mode)
                var info = stat()
                if stat(path, &info) == 0 { _ = chown(staged[i], info.st_uid, info.st_gid) }
                let b = staged[i] + ".old"
                if link(path, b) == 0 { backup = b; TemporaryFiles.add(b) }
            }
            guard rename(staged[i], path) == 0 else {
                let reason = String(cString: strerror(errno))
                if let backup { TemporaryFiles.remove(backup) }
                undo()
                throw .cannotCreate(path: paths[i], reason: reason)
            }
            TemporaryFiles.remove(staged[i])
            done.append((path, backup))
        }
        for (_, backup) in done { if let backup { TemporaryFiles.remove(backup) } }
    }

    /// Removes the staged temporary files (nothing is written).
    public func abort() {
        let staged = temporaries.withLock { t in
            defer { t = Array(repeating: nil, count: t.count) }
            return t
        }
        for case let t? in staged { TemporaryFiles.remove(t) }
    }

    /// Writes one output alone (resolve, stage, commit).
    public static func write(_ data: Data, to path: String) throws(OutputError) {
        let set = try OutputSet([path])
        try set.stage(data, at: 0)
        try set.commit()
    }
}

/// An output of an `OutputSet` written piece by piece (an exponential map's bands) into its
/// staged temporary file, then closed; the set commits it with the others. Until then nothing
/// is in place, and an aborted set removes what was written.
package final class StagedFile: Sendable {
    /// The open descriptor (-1 once closed) and the bytes written so far.
    private let file: Mutex<(fd: Int32, count: Int)>
    /// The output's path as given.
    package let path: String
    /// Bytes written so far.
    package var count: Int { file.withLock { $0.count } }

    /// Stages a new, empty temporary file for output `index` of `set`.
    package init(_ set: OutputSet, at index: Int) throws(OutputError) {
        let temporary = try set.temporaryPath(index)
        path = set.paths[index]
        let fd = open(temporary, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        file = Mutex((fd, 0))
    }

    deinit { file.withLock { if $0.fd >= 0 { _ = closeDescriptor($0.fd) } } }

    /// Appends `data`.
    package func append(_ data: Data) throws(OutputError) {
        let path = path
        try file.withLock { (file) throws(OutputError) in
            guard file.fd >= 0 else { throw .cannotCreate(path: path, reason: "written after it was closed") }
            do throws(IOFailure) { try writeAll(data, toDescriptor: file.fd) } catch {
                throw .cannotCreate(path: path, reason: error.reason)
            }
            file.count += data.count
        }
    }

    /// Flushes and closes the file: the set may then commit it.
    package func close() throws(OutputError) {
        let descriptor = file.withLock { file in
            defer { file.fd = -1 }
            return file.fd
        }
        guard descriptor >= 0 else { return }
        if fsync(descriptor) != 0 && errno != EINVAL && errno != EROFS {
            let reason = String(cString: strerror(errno))
            _ = closeDescriptor(descriptor)
            throw .cannotCreate(path: path, reason: reason)
        }
        guard closeDescriptor(descriptor) == 0 else {
            throw .cannotCreate(path: path, reason: String(cString: strerror(errno)))
        }
    }
}

/// One output of an `OutputSet`, handed to code that stages it for its caller to commit.
public struct OutputSlot: Sendable, Equatable {
    /// The set the output belongs to.
    public let set: OutputSet
    /// The output's index in `set` (its position in `set.paths`).
    public let index: Int

    /// Output `index` of `set`.
    public init(_ set: OutputSet, _ index: Int) {
        self.set = set
        self.index = index
    }

    /// Whether two slots name the same output: the same set (by identity) and the same index.
    public static func == (a: OutputSlot, b: OutputSlot) -> Bool { a.set === b.set && a.index == b.index }
}

/// Files written whole or not at all (one `OutputSet` of one file).
package enum AtomicFile {
    /// Writes `data` to `path` by the output rules.
    package static func write(_ data: Data, to path: String) throws(OutputError) {
        try OutputSet.write(data, to: path)
    }
}

/// close(2), by a name a type's own `close` does not hide.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }

private struct IOFailure: Error {
    let reason: String
    init(_ code: Int32 = errno) { reason = String(cString: strerror(code)) }
}

private func writeAll(_ data: Data, toDescriptor fd: Int32) throws(IOFailure) {
    var failure: IOFailure?
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = IOFailure()
                return
            }
            offset += n
        }
    }
    if let failure { throw failure }
}

private func writeAll(_ data: Data, to path: String, flags: Int32) throws(IOFailure) {
    let fd = open(path, flags | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw IOFailure() }
    do { try writeAll(data, toDescriptor: fd) } catch {
        close(fd)
        throw error
    }
    if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
        let failure = IOFailure()
        close(fd)
        throw failure
    }
    guard close(fd) == 0 else { throw IOFailure() }
}

private func copy(_ source: String, to path: String) throws(IOFailure) {
    let input = try openReleasing(source)
    defer { close(input) }
    // A FIFO without a reader blocks here until one comes (a signal ends the process then).
    let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw IOFailure() }
    defer { close(fd) }
    try copy(input, toDescriptor: fd)
}

private func copy(_ source: String, toDescriptor fd: Int32) throws(IOFailure) {
    let input = try openReleasing(source)
    defer { close(input) }
    try copy(input, toDescriptor: fd)
}

/// Opens a staged temporary file for reading and removes its name: the bytes live on in the
/// descriptor, so a process killed while a stream waits for its reader leaves no file.
private func openReleasing(_ source: String) throws(IOFailure) -> Int32 {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw IOFailure() }
    TemporaryFiles.remove(source)
    return input
}

/// In pieces of 1 MiB: a staged output may be larger than memory (an exponential map).
private func copy(_ input: Int32, toDescriptor fd: Int32) throws(IOFailure) {
    var buffer = Data(count: 1 << 20)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw IOFailure()
        }
        if n == 0 { return }
        try writeAll(buffer.prefix(n), toDescriptor: fd)
    }
}

extension OutputError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}

extension URL {
    /// The path of a `file:` URL, nil for any other scheme: what the calls that take a URL beside
    /// a path use (`LocationFile.read(url:)`, `PNGWriter.write(_:to:)` and the others).
    package var fileSystemPath: String? { isFileURL ? path(percentEncoded: false) : nil }
}
