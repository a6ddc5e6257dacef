import Foundation
import FractalEngine

func NSTemporaryDirectoryPath() -> String { NSTemporaryDirectory() }
func removeFile(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
