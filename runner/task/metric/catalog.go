package metric

import (
	"context"
	"fmt"
	"slices"
)

// metricTable lists every metric deskrun implements, family by family
// (infeasible is handled by Evaluate). A name given twice does not compile.
var metricTable = map[string]Metric{
	// metrics.go
	"exact_match":              {Fn: exactMatch, NeedsExpected: true, CheckRules: needKeys("expected")},
	"check_include_exclude":    {Fn: checkIncludeExclude, NeedsExpected: true, CheckRules: checkIncludeRules},
	"match_in_list":            {Fn: matchInList, NeedsExpected: true, CheckRules: needKeys("expected")},
	"is_in_list":               {Fn: isInList, NeedsExpected: true, CheckRules: needKeys("expected")},
	"literal_match":            {Fn: literalMatch, NeedsExpected: true, CheckOptions: checkLiteralOptions},
	"fuzzy_match":              {Fn: fuzzyMatch, NeedsExpected: true, CheckRules: needKeys("expected")},
	"diff_text_file":           {Fn: diffTextFile, NeedsExpected: true},
	"compare_text_file":        compareTextFileMetric,
	"check_list":               {Fn: checkList, NeedsExpected: true, CheckRules: checkListRules},
	"check_csv":                {Fn: checkCSV, NeedsExpected: true, CheckRules: checkCSVRules},
	"check_json":               {Fn: checkJSON, NeedsExpected: true, CheckOptions: checkJSONOptions, CheckRules: checkJSONRules},
	"check_direct_json_object": {Fn: checkDirectJSONObject, NeedsExpected: true, CheckRules: checkDirectRules},
	"file_contains":            {Fn: fileContains, NeedsExpected: true, CheckRules: checkFileContainsRules},
	"check_line_number":        {Fn: checkLineNumber, NeedsExpected: true, CheckRules: needKeys("expected")},
	"run_sqlite3":              {SandboxFn: runSQLite3, NeedsExpected: true, CheckRules: checkSQLRules},
	"compare_csv":              compareCsvMetric,

	// accessibility.go
	"check_accessibility_tree": {Fn: checkAccessibilityTree, NeedsExpected: true, CheckRules: checkTreeRules},

	// bookmarks_chrome.go
	"is_expected_bookmarks": {Fn: isExpectedBookmarks, NeedsExpected: true, CheckRules: needKeys("type")},

	// metric_archive.go
	"compare_archive":   {Fn: withDeadline(compareArchive), NeedsExpected: true, CheckOptions: checkArchiveOptions},
	"compare_zip_files": {Fn: withDeadline(compareZipFiles), NeedsExpected: true, CheckOptions: anyOptions},

	// metric_audio.go
	"compare_audios": compareAudiosMetric,

	// metric_chrome.go
	"is_expected_active_tab":             {Fn: isExpectedActiveTab, NeedsExpected: true, CheckRules: checkURLRule("url")},
	"is_expected_active_tab_approximate": {Fn: isExpectedActiveTabApproximate, NeedsExpected: true, CheckRules: checkURLRule("url")},
	"is_expected_tabs":                   {Fn: isExpectedTabs, NeedsExpected: true, CheckRules: checkURLRule("urls")},
	"is_expected_url_pattern_match":      {Fn: isExpectedURLPatternMatch, NeedsExpected: true, CheckRules: checkPatternRules},
	"is_expected_search_query":           {Fn: isExpectedSearchQuery, NeedsExpected: true, CheckRules: checkSearchQueryRules},
	"is_expected_installed_extensions":   {Fn: isExpectedInstalledExtensions, NeedsExpected: true, CheckRules: checkStringsRule("expected")},
	"is_cookie_deleted":                  {Fn: isCookieDeleted, NeedsExpected: true, CheckRules: checkTypedRules("domains", "domains")},
	"check_history_deleted":              {Fn: checkHistoryDeleted, NeedsExpected: true, CheckRules: checkTypedRules("keywords", "keywords")},
	"check_enabled_experiments":          {Fn: checkEnabledExperiments, NeedsExpected: true, CheckRules: checkTypedRules("names", "names")},
	"is_shortcut_on_desktop":             {Fn: isShortcutOnDesktop, NeedsExpected: true, CheckRules: checkShortcutRules},
	"check_font_size":                    {Fn: checkFontSize, NeedsExpected: true, CheckRules: checkFontSizeRules},
	"is_added_to_steam_cart":             {Fn: isAddedToSteamCart, NeedsExpected: true, CheckRules: checkStringsRule("items")},

	// metric_docx.go
	"compare_docx_files":                      compareDocxFilesMetric,
	"compare_docx_tables":                     {Fn: withDeadline(compareDocxTables), NeedsExpected: true},
	"compare_line_spacing":                    {Fn: withDeadline(compareLineSpacing), NeedsExpected: true},
	"compare_insert_equation":                 {Fn: withDeadline(compareInsertEquation), NeedsExpected: true},
	"compare_font_names":                      {Fn: withDeadline(compareFontNames), NeedsExpected: true, CheckRules: needKeys("font_name")},
	"compare_subscript_contains":              {Fn: withDeadline(compareSubscriptContains), NeedsExpected: true},
	"has_page_numbers_in_footers":             {Fn: hasPageNumbersInFooters},
	"is_first_line_centered":                  {Fn: isFirstLineCentered},
	"check_tabstops":                          {Fn: withDeadline(checkTabstops), NeedsExpected: true, CheckOptions: anyOptions},
	"compare_contains_image":                  {Fn: withDeadline(compareContainsImage), NeedsExpected: true},
	"evaluate_colored_words_in_tables":        {Fn: withDeadline(evaluateColoredWordsInTables), NeedsExpected: true, CheckOptions: anyOptions},
	"check_highlighted_words":                 {Fn: withDeadline(checkHighlightedWords), NeedsExpected: true},
	"evaluate_strike_through_last_paragraph":  {Fn: withDeadline(evaluateStrikeThroughLastParagraph), NeedsExpected: true},
	"check_italic_font_size_14":               {Fn: withDeadline(checkItalicFontSize14), NeedsExpected: true},
	"find_default_font":                       {Fn: withDeadline(findDefaultFont), NeedsExpected: true, CheckRules: needKeys("font_name")},
	"contains_page_break":                     {Fn: containsPageBreak},
	"compare_docx_lines":                      {Fn: withDeadline(compareDocxLines), NeedsExpected: true},
	"compare_init_lines":                      {Fn: withDeadline(compareInitLines), NeedsExpected: true},
	"compare_unique_train_records":            {Fn: withDeadline(compareUniqueTrainRecords), NeedsExpected: true, CheckOptions: anyOptions},
	"compare_docx_files_and_ignore_new_lines": {Fn: withDeadline(compareDocxFilesIgnoreNewLines), NeedsExpected: true, CheckOptions: anyOptions},
	"compare_docx_images":                     {Fn: withDeadline(compareDocxImages), NeedsExpected: true},
	"compare_highlighted_text":                {Fn: withDeadline(compareHighlightedText), NeedsExpected: true},
	"compare_references":                      {Fn: withDeadline(compareReferences), NeedsExpected: true, CheckOptions: anyOptions},

	// metric_epub.go
	"compare_epub": {Fn: compareEpub, NeedsExpected: true},

	// metric_gimp.go
	"check_structure_sim_resized":                 {Fn: checkStructureSimResized, NeedsExpected: true},
	"check_saturation_increase_and_structure_sim": {Fn: checkSaturationIncrease, NeedsExpected: true},
	"check_triangle_position":                     {Fn: checkTrianglePosition},
	"check_sharper":                               {Fn: checkSharper, NeedsExpected: true},

	// metric_html.go
	"compare_htmls": {Fn: compareHTMLs, NeedsExpected: true, CheckOptions: checkHTMLOptions},

	// metric_image.go
	"compare_images":                              compareImagesMetric,
	"check_structure_sim":                         {Fn: checkStructureSim, NeedsExpected: true},
	"check_structure_sim_with_threshold":          {Fn: checkStructureSimWithThreshold, NeedsExpected: true, CheckOptions: checkSSIMThresholdOptions},
	"check_brightness_decrease_and_structure_sim": {Fn: checkBrightnessDecrease, NeedsExpected: true, CheckOptions: checkThresholdOption},
	"check_contrast_increase_and_structure_sim":   {Fn: checkContrastIncrease, NeedsExpected: true},
	"check_file_exists_and_structure_sim":         {Fn: checkFileExistsAndStructureSim, NeedsExpected: true},
	"check_palette_and_structure_sim":             {Fn: checkPaletteAndStructureSim, NeedsExpected: true},
	"check_image_mirror":                          {Fn: checkImageMirror, NeedsExpected: true},
	"check_image_size":                            {Fn: checkImageSize, NeedsExpected: true},
	"check_image_file_size":                       {Fn: checkImageFileSize, NeedsExpected: true, CheckRules: needKeys("max_size")},
	"check_textbox_on_leftside":                   {Fn: checkTextboxOnLeftside},
	"check_green_background":                      {Fn: checkGreenBackground, NeedsExpected: true},
	"compare_image_list":                          {Fn: compareImageList, NeedsExpected: true},

	// metric_media.go
	"check_mp3_meta": {Fn: checkMP3Meta, NeedsExpected: true, CheckRules: checkMP3Rules},

	// metric_misc.go
	"fuzzy_place_math":                  {Fn: withDeadline(fuzzyPlaceMath), NeedsExpected: true, CheckRules: checkPlaceRules},
	"compare_time_in_speedtest_results": {Fn: compareSpeedtestTime, NeedsExpected: true},
	"check_html_background_image":       {Fn: checkHTMLBackgroundImage, NeedsExpected: true, CheckRules: needKeys("value")},

	// metric_ocr.go
	"compare_image_text": {Fn: compareImageText, NeedsExpected: true, CheckRules: checkImageTextRules},

	// metric_panel.go
	"check_left_panel": {Fn: checkLeftPanel},

	// metric_pdf.go
	"compare_pdfs":       comparePdfsMetric,
	"check_pdf_pages":    {Fn: withDeadline(checkPDFPages), NeedsExpected: true, CheckRules: checkPDFPagesRules},
	"compare_pdf_images": {Fn: withDeadline(comparePDFImages), NeedsExpected: true, CheckOptions: anyOptions},

	// metric_pptx.go
	"compare_pptx_files":                         comparePptxFilesMetric,
	"check_transition":                           {Fn: checkTransition, NeedsExpected: true, CheckRules: needKeys("slide_idx", "transition_type")},
	"evaluate_presentation_fill_to_rgb_distance": {Fn: presentationFillDistance, NeedsExpected: true, CheckRules: needKeys("rgb")},
	"check_page_number_colors":                   {Fn: checkPageNumberColors, NeedsExpected: true, CheckRules: needKeys("color")},
	"check_auto_saving_time":                     {Fn: checkAutoSavingTime, NeedsExpected: true, CheckRules: needKeys("minutes")},
	"check_presenter_console_disable":            {Fn: checkPresenterConsoleDisable},
	"check_image_stretch_and_center":             {Fn: checkImageStretchAndCenter, NeedsExpected: true},
	"check_slide_orientation_Portrait":           {Fn: checkSlideOrientationPortrait},

	// metric_python.go
	"check_python_file_by_test_suite": {Fn: checkPythonTestSuite, NeedsExpected: true, CheckOptions: checkTestSuiteOptions},

	// metric_settings.go
	"check_json_settings":       {Fn: checkJSONSettings, NeedsExpected: true, CheckOptions: anyOptions, CheckRules: checkExpectedObject},
	"check_json_keybindings":    {Fn: checkJSONKeybindings, NeedsExpected: true, CheckOptions: anyOptions, CheckRules: needKeys("expected")},
	"compare_config":            {Fn: compareConfig, NeedsExpected: true, CheckOptions: anyOptions, CheckRules: needKeys("expected")},
	"is_extension_installed":    {Fn: isExtensionInstalled, NeedsExpected: true, CheckOptions: anyOptions, CheckRules: checkExtensionRules},
	"check_config_status":       {Fn: checkConfigStatus, NeedsExpected: true, CheckRules: checkConfigStatusRules},
	"check_thunderbird_prefs":   {Fn: checkThunderbirdPrefs, NeedsExpected: true, CheckRules: checkPrefsRules},
	"check_gnome_favorite_apps": {Fn: checkGnomeFavoriteApps, NeedsExpected: true, CheckRules: needKeys("expected")},
	"is_utc_0":                  {Fn: isUTC0},
	"check_text_enlarged":       {Fn: checkTextEnlarged},
	"check_moved_jpgs":          {Fn: checkMovedJPGs, NeedsExpected: true, CheckRules: needKeys("expected")},
	"is_in_vm_clickboard":       {Fn: isInVMClipboard, NeedsExpected: true},
	"compare_result_files":      {Fn: compareResultFiles, NeedsExpected: true},
	"check_thunderbird_filter":  {Fn: checkThunderbirdFilter, NeedsExpected: true, CheckRules: checkFilterRules},
	"check_thunderbird_folder":  {Fn: checkThunderbirdFolder, NeedsExpected: true, CheckOptions: anyOptions},
	"compare_python_pure_text":  {Fn: comparePythonPureText, NeedsExpected: true},

	// metric_table.go
	"compare_table":                    compareTableMetric,
	"compare_conference_city_in_order": {Fn: withDeadline(compareConferenceCityInOrder), NeedsExpected: true, CheckRules: needKeys("expected")},

	// metric_video.go
	"compare_videos": compareVideosMetric,

	// metric_vlc.go
	"is_vlc_playing":                            {Fn: isVLCPlaying, NeedsExpected: true, CheckRules: checkVLCPlayingRules},
	"is_vlc_recordings_folder":                  {Fn: isVLCRecordingsFolder, NeedsExpected: true, CheckRules: needKeys("recording_file_path")},
	"is_vlc_fullscreen":                         {Fn: isVLCFullscreen, NeedsExpected: true},
	"check_qt_bgcone":                           vlcrcOption("qt-bgcone", "1", "expected_qt_bgcone"),
	"check_play_and_exit":                       vlcrcOption("play-and-exit", "0", "expected_play_and_exit"),
	"check_qt_max_volume":                       vlcrcOption("qt-max-volume", "125", "expected_qt_max_volume"),
	"check_qt_minimal_view":                     vlcrcOption("qt-minimal-view", "0", "expected_qt_minimal_view"),
	"check_one_instance_when_started_from_file": vlcrcOption("one-instance-when-started-from-file", "1", "expected_one_instance_when_started_from_file"),
	"check_global_key_play_pause":               {Fn: checkGlobalKeyPlayPause, NeedsExpected: true, CheckRules: needKeys("expected_global_key_play_pause")},
	"check_qt_slider_colours":                   {Fn: checkQtSliderColours, NeedsExpected: true, CheckRules: checkSliderRules},
}

// Names returns the names of the metrics deskrun implements, sorted,
// infeasible (which the task executor grades) included.
func Names() []string {
	names := []string{"infeasible"}
	for n := range metricTable {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the metric of that name.
func Lookup(name string) (Metric, bool) {
	m, ok := metricTable[name]
	return m, ok
}

// Grade runs one metric on values outside a task, as `deskrun tasks
// grade` does: the options are checked as the loader checks a task's, then
// the metric scores result against expected. A metric that must run in a
// sandbox (run_sqlite3) cannot be graded this way.
func Grade(ctx context.Context, name string, result, expected any, opts map[string]any) (score float64, detail string, err error) {
	m, ok := Lookup(name)
	if !ok {
		return 0, "", fmt.Errorf("metric %q: unknown (deskrun tasks names lists them)", name)
	}
	if m.SandboxFn != nil {
		return 0, "", fmt.Errorf("metric %q runs in a sandbox and cannot be graded on local files", name)
	}
	if len(opts) > 0 {
		if m.CheckOptions == nil {
			return 0, "", fmt.Errorf("options: metric %q takes none", name)
		}
		if err := m.CheckOptions(opts); err != nil {
			return 0, "", fmt.Errorf("options: %w", err)
		}
	}
	if opts == nil {
		opts = map[string]any{}
	}
	return m.Score(ctx, nil, result, expected, opts)
}
