package task

import (
	"maps"
	"slices"

	"github.com/deskrun/deskrun/runner/task/metric"
)

// stepTable lists every setup step type a task may use: the ones deskrun
// runs, family by family, and the ones it knows but cannot run here,
// with the reason (a task using one loads and is skipped). A name given
// twice does not compile.
var stepTable = map[string]stepSpec{
	// setup.go
	"execute":         {check: checkExecute, run: (*run).execute},
	"command":         {check: checkExecute, run: (*run).execute},
	"launch":          {check: checkLaunch, run: (*run).launch},
	"open":            {check: checkOpen, run: (*run).open},
	"sleep":           {check: checkSleep, run: (*run).sleep},
	"download":        {check: checkDownload, run: (*run).download},
	"upload_file":     {check: checkUpload, run: (*run).upload},
	"activate_window": {check: checkWindow, run: (*run).activateWindow},
	"close_window":    {check: checkWindow, run: (*run).closeWindow},

	// profile_chrome.go
	"update_browse_history": {check: checkBrowseHistory, run: (*run).updateBrowseHistory},

	// setup_chrome.go
	"chrome_open_tabs":  {check: checkURLList("urls_to_open"), run: (*run).chromeOpenTabs},
	"chrome_close_tabs": {check: checkURLList("urls_to_close"), run: (*run).chromeCloseTabs},

	// steps_osworld.go
	"change_wallpaper":          {check: checkWallpaper, run: (*run).changeWallpaper},
	"execute_with_verification": {check: checkVerifiedExecute, run: (*run).executeWithVerification},

	// known, unavailable here
	// steps_osworld.go
	// OSWorld's googledrive (desktop_env/controllers/setup.py).
	"googledrive": unavailableStep("needs Google Drive credentials (OSWorld's settings/googledrive), which a sandbox run cannot hold"),
	// OSWorld's login (desktop_env/controllers/setup.py).
	"login": unavailableStep("needs an account login on a live web service (OSWorld's settings/google), which a sandbox run cannot hold"),
	// OSWorld's proxy (desktop_env/controllers/setup.py).
	"proxy": unavailableStep("needs OSWorld's proxy service, which a sandbox run does not have"),
	// OSWorld's tidy_desktop (desktop_env/controllers/setup.py).
	"tidy_desktop": unavailableStep("OSWorld does not implement this step either"),
	// OSWorld's act (desktop_env/controllers/setup.py).
	"act": unavailableStep("OSWorld does not implement this step either"),
	// OSWorld's replay (desktop_env/controllers/setup.py).
	"replay": unavailableStep("OSWorld does not implement this step either"),
}

// getterTable lists every getter type a task may use, as stepTable does
// for steps.
var getterTable = map[string]getterSpec{
	// getters.go
	"vm_command_line":  {check: checkCommandGetter, get: (*run).vmCommandLine},
	"vm_command_error": {check: checkCommandGetter, get: (*run).vmCommandError},
	"vm_file":          {check: checkFileGetter, get: (*run).vmFile},
	"cloud_file":       {check: checkFileGetter, get: (*run).cloudFile},
	"list_directory":   {check: checkPathGetter, get: (*run).listDirectory},
	"vm_screen_size":   {check: checkNoParams, get: (*run).vmScreenSize},
	"vm_window_size":   {check: checkWindowSizeGetter, get: (*run).vmWindowSize},
	"rule":             {check: checkRuleGetter, get: (*run).rule},
	"cache_file":       {check: checkCacheFileGetter, get: (*run).cacheFile},

	// accessibility.go
	"accessibility_tree": {check: checkAnyParams, get: (*run).accessibilityTree},
	"vm_terminal_output": {check: checkAnyParams, get: (*run).vmTerminalOutput},

	// appearance_chrome.go
	"chrome_appearance_mode_ui": {check: checkNoParams, get: (*run).appearanceMode},

	// bookmarks_chrome.go
	"bookmarks": {check: checkNoParams, get: (*run).bookmarks},

	// getters_chrome.go
	"open_tabs_info":             {check: checkNoParams, get: (*run).openTabsInfo},
	"active_url_from_accessTree": {check: checkNoParams, get: (*run).activeURLGetter},
	"active_tab_info":            {check: checkNoParams, get: (*run).activeTabInfo},
	"page_info":                  {check: checkPageInfo, get: (*run).pageInfo},
	"active_tab_html_parse":      {check: checkHTMLParse, get: (*run).activeTabHTMLParse},
	"active_tab_url_parse":       {check: checkURLParse, get: (*run).activeTabURLParse},
	"url_path_parse":             {check: checkURLParse, get: (*run).urlPathParse},
	"url_dashPart":               {check: checkDashPart, get: (*run).urlDashPart},
	"pdf_from_url":               {check: checkPDFFromURL, get: (*run).pdfFromURL},

	// getters_content.go
	"content_from_vm_file": {check: checkContentGetter, get: (*run).contentFromVMFile},

	// getters_impress.go
	"audio_in_slide":            {check: checkSlideMediaGetter, get: (*run).audioInSlide},
	"background_image_in_slide": {check: checkSlideMediaGetter, get: (*run).backgroundImageInSlide},

	// getters_osworld.go
	"vlc_playing_info":     {check: checkDestGetter, get: (*run).vlcPlayingInfo},
	"vlc_config":           {check: checkDestGetter, get: (*run).vlcConfig},
	"default_video_player": {check: checkNoParams, get: (*run).defaultVideoPlayer},
	"gimp_config_file":     {check: checkGimpGetter, get: (*run).gimpConfigFile},
	"vm_wallpaper":         {check: checkDestGetter, get: (*run).vmWallpaper},
	"shortcuts_on_desktop": {check: checkNoParams, get: (*run).shortcutsOnDesktop},
	"vscode_config":        {check: checkVSCodeGetter, get: (*run).vscodeConfig},

	// getters_time.go
	"rule_relativeTime": {check: checkRelativeTime, get: (*run).ruleRelativeTime},
	"time_diff_range":   {check: checkNoParams, get: (*run).timeDiffRange},

	// profile_chrome.go
	"default_search_engine":           {check: checkNoParams, get: prefGetter("Default/Preferences", defaultSearchEngine)},
	"profile_name":                    {check: checkNoParams, get: prefGetter("Default/Preferences", profileName)},
	"chrome_font_size":                {check: checkNoParams, get: prefGetter("Default/Preferences", chromeFontSize)},
	"enable_do_not_track":             {check: checkNoParams, get: prefGetter("Default/Preferences", enableDoNotTrack)},
	"enable_enhanced_safety_browsing": {check: checkNoParams, get: prefGetter("Default/Preferences", enhancedSafeBrowsing)},
	"new_startup_page":                {check: checkNoParams, get: prefGetter("Default/Preferences", newStartupPage)},
	"enable_safe_browsing":            {check: checkNoParams, get: prefGetter("Default/Preferences", safeBrowsing)},
	"data_delete_automacally":         {check: checkNoParams, get: prefGetter("Default/Preferences", dataDeleteAutomatically)},
	"find_unpacked_extension_path":    {check: checkNoParams, get: prefGetter("Default/Preferences", unpackedExtensionPaths)},
	"enabled_experiments":             {check: checkNoParams, get: prefGetter("Local State", enabledExperiments)},
	"chrome_language":                 {check: checkNoParams, get: prefGetter("Local State", chromeLanguage)},
	"find_installed_extension_name":   {check: checkNoParams, get: (*run).installedExtensionNames},
	"extensions_installed_from_shop":  {check: checkNoParams, get: (*run).extensionsFromShop},
	"history":                         {check: checkDestOptional, get: (*run).history},
	"cookie_data":                     {check: checkDestOptional, get: (*run).cookieData},

	// website_chrome.go
	"info_from_website": {check: checkInfoFromWebsite, get: (*run).infoFromWebsite},

	// known, unavailable here
	// browser_pending.go
	// OSWorld's chrome_saved_address (desktop_env/evaluators/getters/chrome.py).
	"chrome_saved_address": unavailableGetter("reads chrome://settings/addresses, a page the runner's browser access does not open (agentd opens http, https, file and about pages only)"),
	// OSWorld's gotoRecreationPage_and_get_html_content (desktop_env/evaluators/getters/chrome.py).
	"gotoRecreationPage_and_get_html_content": unavailableGetter("searches the live www.recreation.gov site (its hard-coded search and page layout), which needs the internet"),
	// OSWorld's number_of_search_results (desktop_env/evaluators/getters/chrome.py).
	"number_of_search_results": unavailableGetter("counts results of a hard-coded live Google search, which needs the internet"),
	// OSWorld's googledrive_file (desktop_env/evaluators/getters/chrome.py).
	"googledrive_file": unavailableGetter("needs Google Drive credentials (OSWorld's settings/googledrive), which a sandbox run cannot hold"),

	// getters_osworld.go
	// OSWorld's conference_city_in_order (desktop_env/evaluators/getters/calc.py).
	"conference_city_in_order": unavailableGetter("this OSWorld getter is not implemented yet"),
	// OSWorld's replay (desktop_env/evaluators/getters/replay.py).
	"replay": unavailableGetter("this OSWorld getter is not implemented yet"),
}

// Name is one entry of the catalogue of what a task may use.
type Name struct {
	// Kind is "step", "getter" or "metric".
	Kind string `json:"kind"`
	// Name is the type or function name a task file gives.
	Name string `json:"name"`
	// Unavailable says why it cannot run here (a task using it loads and
	// is skipped); empty when it runs.
	Unavailable string `json:"unavailable,omitempty"`
}

// Names lists every setup step type, getter type and metric a task may
// use, from the tables, by kind (steps, getters, metrics) and name.
func Names() []Name {
	var out []Name
	for _, n := range slices.Sorted(maps.Keys(stepTable)) {
		out = append(out, Name{Kind: "step", Name: n, Unavailable: stepTable[n].unavailable})
	}
	for _, n := range slices.Sorted(maps.Keys(getterTable)) {
		out = append(out, Name{Kind: "getter", Name: n, Unavailable: getterTable[n].unavailable})
	}
	for _, n := range metric.Names() {
		out = append(out, Name{Kind: "metric", Name: n})
	}
	return out
}
