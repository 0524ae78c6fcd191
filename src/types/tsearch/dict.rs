//! Text-search configurations: which dictionary each token kind of the default parser
//! goes through, and the dictionaries themselves (PostgreSQL's `simple`, `english_stem`
//! and the other snowball stemmers of `languages`). `parsetext` is PostgreSQL's
//! `parsetext` for these configurations: positions count every token a dictionary was
//! asked about, stop words included.
//!
//! kiln has `simple`, `english` and the fourteen languages of `languages` (oids as
//! PostgreSQL 15's); the other languages PostgreSQL has answer 0A000. The stemmers are
//! the snowball ones PostgreSQL uses (crate `rust-stemmers`, with the fix-ups that make
//! it agree); the stop words are PostgreSQL's files. Words are lowercased as
//! PostgreSQL's `lower` does in C.UTF-8 (`languages::pg_lower`).

use super::languages::{LANGUAGES, Language, pg_lower};
use super::parser::{self, TokenKind};
use super::{Lexizer, MAX_LEXEME_LEN, ParsedWord};

/// A text-search configuration kiln has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Config {
    Simple,
    English,
    /// A language of [`LANGUAGES`], by its index.
    Snowball(u8),
}

/// PostgreSQL 15's configurations, by oid (kiln has `simple` and `english`; the others
/// are known by name so that they can be refused as unsupported rather than unknown).
pub const CONFIGS: [(u32, &str); 29] = [
    (3748, "simple"),
    (13152, "arabic"),
    (13154, "armenian"),
    (13156, "basque"),
    (13158, "catalan"),
    (13160, "danish"),
    (13162, "dutch"),
    (13164, "english"),
    (13166, "finnish"),
    (13168, "french"),
    (13170, "german"),
    (13172, "greek"),
    (13174, "hindi"),
    (13176, "hungarian"),
    (13178, "indonesian"),
    (13180, "irish"),
    (13182, "italian"),
    (13184, "lithuanian"),
    (13186, "nepali"),
    (13188, "norwegian"),
    (13190, "portuguese"),
    (13192, "romanian"),
    (13194, "russian"),
    (13196, "serbian"),
    (13198, "spanish"),
    (13200, "swedish"),
    (13202, "tamil"),
    (13204, "turkish"),
    (13206, "yiddish"),
];

impl Config {
    /// Every configuration kiln has.
    pub fn all() -> impl Iterator<Item = Config> {
        [Config::Simple, Config::English]
            .into_iter()
            .chain((0..LANGUAGES.len()).map(|i| Config::Snowball(i as u8)))
    }

    fn language(self) -> Option<&'static Language> {
        match self {
            Config::Snowball(i) => LANGUAGES.get(i as usize),
            _ => None,
        }
    }

    pub fn oid(self) -> u32 {
        match self {
            Config::Simple => 3748,
            Config::English => 13164,
            Config::Snowball(_) => self.language().map_or(0, |l| l.config_oid),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Config::Simple => "simple",
            Config::English => "english",
            Config::Snowball(_) => self.language().map_or("", |l| l.config),
        }
    }

    pub fn from_oid(oid: u32) -> Option<Config> {
        Config::all().find(|c| c.oid() == oid)
    }

    /// The configuration of a PostgreSQL 15 configuration oid: Err(name) for one kiln
    /// lacks, Ok(None) for an oid that is no configuration.
    pub fn of_oid(oid: u32) -> Result<Option<Config>, &'static str> {
        match Config::from_oid(oid) {
            Some(c) => Ok(Some(c)),
            None => match CONFIGS.iter().find(|c| c.0 == oid) {
                Some(c) => Err(c.1),
                None => Ok(None),
            },
        }
    }

    /// The dictionary a token of `kind` goes through; None for kinds the configuration
    /// skips (tags, entities, blanks, protocols), which take no position.
    pub fn dictionary(self, kind: TokenKind) -> Option<Dictionary> {
        use TokenKind::*;
        match (kind, self) {
            (Tag | Entity | Blank | Protocol, _) => None,
            (AsciiWord | AsciiHWord | HWordAsciiPart, Config::Snowball(_))
                if self.language().is_some_and(|l| l.ascii_to_english) =>
            {
                Some(Dictionary::EnglishStem)
            }
            (
                AsciiWord | Word | AsciiHWord | HWord | HWordAsciiPart | HWordPart,
                Config::English,
            ) => Some(Dictionary::EnglishStem),
            (
                AsciiWord | Word | AsciiHWord | HWord | HWordAsciiPart | HWordPart,
                Config::Snowball(i),
            ) => Some(Dictionary::Snowball(i)),
            _ => Some(Dictionary::Simple),
        }
    }
}

/// The dictionaries kiln has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dictionary {
    Simple,
    EnglishStem,
    /// The stemmer of a language of [`LANGUAGES`], by its index.
    Snowball(u8),
}

impl Dictionary {
    /// Every dictionary kiln has.
    pub fn all() -> impl Iterator<Item = Dictionary> {
        [Dictionary::Simple, Dictionary::EnglishStem]
            .into_iter()
            .chain((0..LANGUAGES.len()).map(|i| Dictionary::Snowball(i as u8)))
    }

    /// PostgreSQL 15's oid of the dictionary.
    pub fn oid(self) -> u32 {
        match self {
            Dictionary::Simple => 3765,
            Dictionary::EnglishStem => 13163,
            Dictionary::Snowball(i) => LANGUAGES.get(i as usize).map_or(0, |l| l.dict_oid),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dictionary::Simple => "simple",
            Dictionary::EnglishStem => "english_stem",
            Dictionary::Snowball(i) => LANGUAGES.get(i as usize).map_or("", |l| l.dict),
        }
    }

    pub fn named(name: &str) -> Option<Dictionary> {
        match name {
            "simple" => Some(Dictionary::Simple),
            "english_stem" => Some(Dictionary::EnglishStem),
            _ => LANGUAGES
                .iter()
                .position(|l| l.dict == name)
                .map(|i| Dictionary::Snowball(i as u8)),
        }
    }

    /// The lexemes of one token (`ts_lexize`): Some(empty) for a stop word.
    pub fn lexize(self, token: &str) -> Option<Vec<String>> {
        match self {
            Dictionary::Simple => {
                let lower = pg_lower(token);
                Some(if lower.is_empty() {
                    Vec::new()
                } else {
                    vec![lower]
                })
            }
            Dictionary::Snowball(i) => LANGUAGES.get(i as usize).map(|l| l.lexize(token)),
            Dictionary::EnglishStem => {
                let lower = pg_lower(token);
                // PostgreSQL's snowball dictionary leaves very long tokens unstemmed
                // (measured before lowercasing), and does not look them up as stop words.
                if token.len() > 1000 {
                    return Some(vec![lower]);
                }
                if lower.is_empty() || is_english_stop_word(&lower) {
                    return Some(Vec::new());
                }
                thread_local! {
                    static STEMMER: rust_stemmers::Stemmer =
                        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
                }
                let stemmed = STEMMER.with(|s| match s.stem(&lower) {
                    // An empty stem leaves the word as it was (as PostgreSQL does).
                    c if c.is_empty() => None,
                    // Unchanged: keep the lowered word rather than copy it.
                    std::borrow::Cow::Borrowed(b) if b.len() == lower.len() => None,
                    other => Some(other.into_owned()),
                });
                Some(vec![stemmed.unwrap_or(lower)])
            }
        }
    }
}

/// PostgreSQL's english.stop, sorted.
const ENGLISH_STOP_WORDS: [&str; 127] = [
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "did",
    "do",
    "does",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "s",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

fn is_english_stop_word(w: &str) -> bool {
    // Every token of every document asks: a hash set, not a binary search of memcmps.
    static SET: std::sync::OnceLock<std::collections::HashSet<&str, foldhash::fast::FixedState>> =
        std::sync::OnceLock::new();
    // The longest stop word has 10 bytes.
    w.len() <= 10
        && SET
            .get_or_init(|| ENGLISH_STOP_WORDS.iter().copied().collect())
            .contains(w)
}

/// A configuration as the parse-and-lexize step of `to_tsvector` and `to_tsquery`.
pub struct ConfigLexizer {
    pub config: Config,
    /// NOTICEs raised while parsing (words too long to be indexed).
    pub notices: std::cell::RefCell<Vec<String>>,
}

impl ConfigLexizer {
    pub fn new(config: Config) -> ConfigLexizer {
        ConfigLexizer {
            config,
            notices: Default::default(),
        }
    }
}

impl ConfigLexizer {
    /// [`Lexizer::parsetext`] continuing after position `pos` (the last one used), the
    /// words appended to `words`; returns the last position used.
    pub fn parsetext_from(&self, text: &str, mut pos: u32, words: &mut Vec<ParsedWord>) -> u32 {
        for token in parser::parse(text) {
            let Some(dict) = self.config.dictionary(token.kind) else {
                continue;
            };
            if token.text.len() > MAX_LEXEME_LEN {
                self.notices
                    .borrow_mut()
                    .push("word is too long to be indexed".to_string());
                continue;
            }
            let Some(lexemes) = dict.lexize(token.text) else {
                continue;
            };
            pos = pos.saturating_add(1);
            for word in lexemes {
                words.push(ParsedWord {
                    word,
                    pos,
                    nvariant: 0,
                });
            }
        }
        pos
    }
}

impl Lexizer for ConfigLexizer {
    fn parsetext(&self, text: &str) -> Vec<ParsedWord> {
        let mut words = Vec::new();
        self.parsetext_from(text, 0, &mut words);
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_and_found() {
        assert!(ENGLISH_STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_english_stop_word("the"));
        assert!(is_english_stop_word("ourselves"));
        assert!(!is_english_stop_word("fox"));
    }

    #[test]
    fn english_positions_count_stop_words() {
        // PostgreSQL 15: to_tsvector('english', 'The quick foxes jumped') = 'fox':3 'jump':4 'quick':2
        let lx = ConfigLexizer::new(Config::English);
        let words: Vec<(String, u32)> = lx
            .parsetext("The quick foxes jumped")
            .into_iter()
            .map(|w| (w.word, w.pos))
            .collect();
        assert_eq!(
            words,
            vec![("quick".into(), 2), ("fox".into(), 3), ("jump".into(), 4)]
        );
    }

    #[test]
    fn simple_lowercases_and_keeps_stop_words() {
        assert_eq!(
            Dictionary::Simple.lexize("The"),
            Some(vec!["the".to_string()])
        );
        assert_eq!(Dictionary::EnglishStem.lexize("The"), Some(vec![]));
        assert_eq!(
            Dictionary::EnglishStem.lexize("Running"),
            Some(vec!["run".to_string()])
        );
    }
}
