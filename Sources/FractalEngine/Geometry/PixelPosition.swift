/// A pixel of an image: column `x` from the left, row `y` from the top (Documentation/Conventions.md).
/// The one way the library names a pixel in its reports; ordered row by row, as the field's
/// arrays are.
public struct PixelPosition: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The column, 0 at the left.
    public var x: Int
    /// The row, 0 at the top.
    public var y: Int

    /// The pixel at column `x` and row `y`.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// The pixel at `index` (y * width + x) of an image `width` pixels wide.
    public init(index: Int, width: Int) {
        self.init(x: index % width, y: index / width)
    }

    /// Its index in a row-major array of an image `width` pixels wide: y * width + x.
    public func index(width: Int) -> Int { y * width + x }

    /// Row by row: the order of the field's arrays.
    public static func < (a: PixelPosition, b: PixelPosition) -> Bool { (a.y, a.x) < (b.y, b.x) }

    /// `x,y`, as the command line prints and takes pixels.
    public var description: String { "\(x),\(y)" }
}
