/// The allowed keys of a payload as a tree, so that checking walks the payload and the
/// tree together instead of building path strings.
///
/// A listed path allows every key on the way to it. A listed path with nothing listed
/// below it allows anything below it. `*` stands for any key at its level.
final class KeyTree: Sendable {
    let children: [String: KeyTree]
    let wildcard: KeyTree?

    private init(children: [String: KeyTree], wildcard: KeyTree?) {
        self.children = children
        self.wildcard = wildcard
    }

    /// Whether anything at all may appear below this node.
    var isOpen: Bool { children.isEmpty && wildcard == nil }

    /// The tree of `paths`; array indices in a path are ignored (arrays share their element's rules).
    static func build(_ paths: [JSONPath]) -> KeyTree {
        build(paths.map { path in
            path.components.compactMap { component -> String? in
                if case .key(let key) = component { return key }
                return nil
            }
        }[...])
    }

    private static func build(_ paths: ArraySlice<[String]>) -> KeyTree {
        var grouped: [String: [[String]]] = [:]
        for path in paths {
            guard let first = path.first else { continue }
            grouped[first, default: []].append(Array(path.dropFirst()))
        }
        var children: [String: KeyTree] = [:]
        for (key, rests) in grouped {
            // A path that ends here opens this node, whatever else is listed below it.
            children[key] = rests.contains(where: \.isEmpty) ? open : build(rests[...])
        }
        let wildcard = children.removeValue(forKey: "*")
        return KeyTree(children: children, wildcard: wildcard)
    }

    private static let open = KeyTree(children: [:], wildcard: nil)

    /// The node for `key` below this one, or nil when the key is not allowed.
    func child(_ key: String) -> KeyTree? {
        children[key] ?? wildcard
    }
}
