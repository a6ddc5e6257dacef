import Foundation

/// Files written whole or not at all: the bytes go to a temporary file in the same folder,
/// renamed over the destination only when complete, so a failed or interrupted write leaves
/// no file (and never a partial one) at the destination.
public enum AtomicFile {
    /// A temporary path next to `path`, after checking that its folder exists.
    static func temporaryPath(for path: String) throws(ImageWriteError) -> String {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw .cannotCreate(path: path, reason: "folder '\(folder)' does not exist")
        }
        return folder + "/." + url.lastPathComponent + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Renames the complete `temporary` over `path` (removing `temporary` if that fails).
    static func commit(_ temporary: String, to path: String) throws(ImageWriteError) {
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotCreate(path: path, reason: reason)
        }
    }

    /// Writes `data` to `path` atomically.
    public static func write(_ data: Data, to path: String) throws(ImageWriteError) {
        let temporary = try temporaryPath(for: path)
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            unlink(temporary)
            throw .cannotCreate(path: path, reason: "cannot create a file in its folder (permission denied or disk full)")
        }
        try commit(temporary, to: path)
    }
}
