//! The command line's parser of a [`Choice`]: the library's enums offered as clap's value
//! enums are (the same possible values in help, completions and manual pages, the same
//! errors), without the library deriving clap's traits.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::choice::Choice;

/// Parses a word into a `T`, offering every value of `T` with its help line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChoiceParser<T>(PhantomData<T>);

/// The parser of `T`'s words, for `#[arg(value_parser = choice::<T>())]`.
pub(crate) fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

impl<T: Choice> ChoiceParser<T> {
    fn words() -> PossibleValuesParser {
        PossibleValuesParser::new(T::ALL.iter().map(|value| possible_value(*value)))
    }
}

fn possible_value<T: Choice>(value: T) -> PossibleValue {
    PossibleValue::new(value.name()).help(value.help())
}

impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // Text that is not UTF-8 is refused as an invalid value, shown lossily, as clap's
        // value enums refuse it (not as clap's "invalid UTF-8" usage error).
        let lossy = value.to_string_lossy();
        let word = Self::words().parse_ref(cmd, arg, OsStr::new(lossy.as_ref()))?;
        Ok(T::from_name(&word).expect("the parser accepts only the values' words"))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(T::ALL.iter().map(|value| possible_value(*value))))
    }
}
