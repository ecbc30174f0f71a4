"""A test function's definition and its forms: the generated interval and point code, the card cache, models."""
