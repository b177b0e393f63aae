// Mozilla User Preferences

user_pref("extensions.activeThemeID", "dark");
