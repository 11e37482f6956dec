"""Social media: user profiles, posts, follows, feeds, likes, comments, hashtags and blocking.

Business rules: a user cannot follow themselves or follow someone twice; a post can be liked
once per user; when A blocks B, follows between them are removed both ways and neither can see
or interact with the other's posts (nor follow the other) until A unblocks; posts are at most
280 characters (1,000 for verified users) and carry at most 10 hashtags; comments are at most
500 characters; only a post's author can delete it (its likes and comments go with it).
"""

from servers.social_media import intents, intents_circle, intents_followups, intents_own, intents_people, intents_react  # noqa: F401  (registers the intents)
from servers.social_media.tools import social_media as server

__all__ = ["server"]
