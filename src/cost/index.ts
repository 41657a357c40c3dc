/**
 * The cost module's public surface (the package barrel re-exports it): pricing, the totals fold and the usage
 * export. Rendering for humans lives in src/cli/render/. See docs/cost.md.
 */
export type { CostRecord, CostSummary, CostBreakdown, CostAggregationOptions, CostMode, CostGroupBy, UnpricedUsage } from './types.js';
export { createPricer, resolvePriceEntry } from './pricing.js';
export { checkCostMode, COST_MODES, COST_GROUP_BYS, emptyCostSummary } from './types.js';
export type { Pricer, PricerOptions, PriceResult, PriceSource, PriceableUsage, ResolvedPrice } from './pricing.js';
export type { PriceEntry, PriceVariant, RateSet, PriceConstraint } from './price-table.js';
export { loadPriceOverrides, parseOverrides, getPricesPath, OVERRIDE_PRICE_KEYS } from './overrides.js';
export type { PriceOverrides } from './overrides.js';
export { normalizeModelName } from './models.js';
export { foldCost, createCostFold } from './fold.js';
export type { CostFold, StoredFoldState } from './fold.js';
export type { ExportedFoldState } from './fold-state.js';
export { totalCostIncremental, snapshotKey } from './incremental.js';
export type { FoldRunInfo } from './incremental.js';
export { normalizeCostOptions } from './filter.js';
export type { CostFoldOptions, NormalizedCostOptions } from './filter.js';
export { totalCost, usageBlocks } from './total.js';
export { createBlocksFold, foldBlocks, BLOCK_MS } from './blocks.js';
export type { BlocksFold, BlocksFoldOptions, BlocksReport, UsageBlock, BlockBurnRate, BlockProjection, BlockTokenCounts } from './blocks.js';
export { statusLine, dayOf } from './statusline.js';
export type { StatusLineQuery, StatusLineData, StatusLineCost, StatusLineBlock, StatusLineContext } from './statusline.js';
export { exportUsage, exportUsageBatches, ExportCursor, EXPORT_CSV_COLUMNS } from './export.js';
export type { UsageExportLine, UsageExportOptions, ExportCursorDocument, ExportFileMark } from './export.js';
export { ZoneCalendar } from './calendar.js';
