# SPDX-License-Identifier: MIT
"""trigos's host tools as one package; tools/NAME are its thin entry scripts."""
