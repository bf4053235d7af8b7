"""Which runner/funcs module registers each template function.

The registry (runner.funcs.registry) starts from this table, so the parser
knows every name without importing anything, and a family module is
imported the first time a render calls one of its functions. Registering a
name this table does not give to the registering module is an error at
import; tests/unit/funcs/test_index.py checks that importing each module
alone registers exactly its names. The module names match the family column
of docs/functions.md.
"""

from __future__ import annotations

FUNCTIONS_BY_MODULE: dict[str, tuple[str, ...]] = {
    "certs": (
        "buildCustomCert", "genCA", "genCAWithKey", "genPrivateKey", "genSelfSignedCert",
        "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
    ),
    "conversion": (
        "atoi", "float64", "int", "int64", "toDecimal", "toString", "toStrings",
    ),
    "crypto": (
        "adler32sum", "bcrypt", "decryptAES", "derivePassword", "encryptAES", "htpasswd",
        "randBytes", "sha1sum", "sha256sum", "sha512sum", "uuidv4",
    ),
    "date": (
        "ago", "date", "dateInZone", "dateModify", "date_in_zone", "date_modify", "duration",
        "durationRound", "htmlDate", "htmlDateInZone", "mustDateModify", "mustToDate",
        "must_date_modify", "now", "toDate", "unixEpoch",
    ),
    "defaults": (
        "all", "any", "coalesce", "default", "empty", "ternary",
    ),
    "dicts": (
        "deepCopy", "dict", "dig", "get", "hasKey", "keys", "merge", "mergeOverwrite",
        "mustDeepCopy", "mustMerge", "mustMergeOverwrite", "omit", "pick", "pluck", "set",
        "unset", "values",
    ),
    "helm": (
        "fail", "fromJson", "fromJsonArray", "fromToml", "fromYaml", "fromYamlArray",
        "mustFromJson", "mustToJson", "mustToPrettyJson", "mustToRawJson", "mustToYaml",
        "toJson", "toPrettyJson", "toRawJson", "toToml", "toYaml", "toYamlPretty",
    ),
    "lists": (
        "append", "chunk", "compact", "concat", "first", "has", "initial", "last", "list",
        "mustAppend", "mustChunk", "mustCompact", "mustFirst", "mustHas", "mustInitial",
        "mustLast", "mustPrepend", "mustPush", "mustRest", "mustReverse", "mustSlice",
        "mustUniq", "mustWithout", "prepend", "push", "rest", "reverse", "slice", "sortAlpha",
        "tuple", "uniq", "without",
    ),
    "network": (
        "getHostByName",
    ),
    "numeric": (
        "add", "add1", "add1f", "addf", "biggest", "ceil", "div", "divf", "floor", "max",
        "maxf", "min", "minf", "mod", "mul", "mulf", "randInt", "round", "seq", "sub", "subf",
        "until", "untilStep",
    ),
    "paths": (
        "base", "clean", "dir", "ext", "isAbs", "osBase", "osClean", "osDir", "osExt", "osIsAbs",
    ),
    "reflect": (
        "deepEqual", "kindIs", "kindOf", "typeIs", "typeIsLike", "typeOf",
    ),
    "regex": (
        "mustRegexFind", "mustRegexFindAll", "mustRegexMatch", "mustRegexReplaceAll",
        "mustRegexReplaceAllLiteral", "mustRegexSplit", "regexFind", "regexFindAll",
        "regexMatch", "regexQuoteMeta", "regexReplaceAll", "regexReplaceAllLiteral",
        "regexSplit",
    ),
    "semver": (
        "semver", "semverCompare",
    ),
    "strings": (
        "abbrev", "abbrevboth", "b32dec", "b32enc", "b64dec", "b64enc", "camelcase", "cat",
        "contains", "hasPrefix", "hasSuffix", "hello", "indent", "initials", "join",
        "kebabcase", "lower", "nindent", "nospace", "plural", "quote", "randAlpha",
        "randAlphaNum", "randAscii", "randNumeric", "repeat", "replace", "shuffle", "snakecase",
        "split", "splitList", "splitn", "squote", "substr", "swapcase", "title", "trim",
        "trimAll", "trimPrefix", "trimSuffix", "trimall", "trunc", "untitle", "upper", "wrap",
        "wrapWith",
    ),
    "urls": (
        "urlJoin", "urlParse",
    ),
}
