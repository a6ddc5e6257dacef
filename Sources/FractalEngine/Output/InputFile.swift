import Foundation

/// Every file a command reads is opened here (Documentation/Reliability.md, "Inputs"): the
/// path must name a regular file (a folder, a FIFO, a device or a socket is refused at once:
/// reading one could block forever or never end), readable, and not larger than the reader's
/// limit. It is opened without blocking, checked again through the open descriptor (a FIFO
/// swapped in after the first look is still refused), and read in full or handed over open.
package enum InputFile {
    /// Why an input cannot be read, in a few words ("no such file", "it is a folder").
    package struct Failure: Error {
        package let reason: String
    }

    /// The whole file at `path`, at most `maximumSize` bytes (`kind` names such a file in the
    /// error: "a location file").
    package static func read(_ path: String, maximumSize: Int, kind: String = "an input") throws(Failure) -> Data {
        let handle = try open(path, maximumSize: maximumSize, kind: kind)
        defer { try? handle.close() }
        do { return try handle.readToEnd() ?? Data() } catch {
            throw Failure(reason: "I/O error")
        }
    }

    /// The file at `path`, open for reading, at most `maximumSize` bytes (nil: no limit).
    package static func open(_ path: String, maximumSize: Int? = nil, kind: String = "an input") throws(Failure)
        -> FileHandle
    {
        guard !path.isEmpty else { throw Failure(reason: "an empty path") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw Failure(reason: errno == ENOENT ? "no such file" : message()) }
        try check(info, maximumSize: maximumSize, kind: kind)
        let fd = openForReading(path)
        guard fd >= 0 else { throw Failure(reason: errno == EACCES ? "permission denied" : message()) }
        guard fstat(fd, &info) == 0 else {
            let reason = message()
            close(fd)
            throw Failure(reason: reason)
        }
        do { try check(info, maximumSize: maximumSize, kind: kind) } catch {
            close(fd)
            throw error
        }
        // Reads of a regular file never block; the flag only kept the open from waiting.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    private static func check(_ info: stat, maximumSize: Int?, kind: String) throws(Failure) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Failure(reason: "it is a folder")
        case S_IFIFO: throw Failure(reason: "not a regular file (a FIFO)")
        case S_IFCHR, S_IFBLK: throw Failure(reason: "not a regular file (a device)")
        case S_IFSOCK: throw Failure(reason: "not a regular file (a socket)")
        default: throw Failure(reason: "not a regular file")
        }
        if let maximumSize, info.st_size > maximumSize {
            throw Failure(reason: "\(info.st_size) bytes, more than \(kind)'s \(maximumSize)")
        }
    }

    private static func message() -> String { String(cString: strerror(errno)) }
}

/// open(2) for reading, without blocking (a name `InputFile.open` does not hide).
private func openForReading(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
}
